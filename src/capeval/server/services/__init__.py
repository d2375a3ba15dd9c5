"""Server services, one module per job: accounts, challenge set-up, submissions and quotas,
jobs, the leaderboard. They raise :mod:`capeval.server.domain.errors`; none knows about HTTP."""
