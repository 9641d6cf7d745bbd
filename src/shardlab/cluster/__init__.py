"""Where the load goes: `local` provisions clusters on this machine, `client` talks to any."""
