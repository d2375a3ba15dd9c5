"""Throttles for guessing passwords and for registering accounts in bulk (in memory, per process).

Logins (the design is stated for hosts in docs/server.md, "Login throttle"):

* **per account and address**: 10 failures for one user name from one address within 15 minutes
  lock that pair until the window has passed (429);
* **per account**: 50 failures for one user name from any addresses within 15 minutes lock the
  account for every address that has not logged into it before (a spread-out guess stays slow);
  addresses the account logged in from in the last 30 days keep working;
* **per address**: past 20 failures from one address within 15 minutes, every further attempt from
  it on a name it has not logged into before is *slowed*, never refused for that reason alone: the
  attempts of that address wait their turn, one per second (more as the failures pile up), and
  only when the queue would keep a request waiting over a minute is it refused. A lab or a
  conference network that shares one address keeps its users' logins working while someone on it
  guesses: their known accounts are not slowed, new ones only wait.

Names that do not exist are counted like names that do (the throttle never looks the name up), so
neither the answers nor their timing tell which names exist. Every address a request may come from
is counted (:func:`capeval.server.api.proxy.throttle_keys`).

Registrations: at most ``per_address_hour`` accounts from one address in an hour (the hosts set it).
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict, deque
from collections.abc import Sequence
from dataclasses import dataclass

from capeval.server.domain.errors import TooManyAttempts

__all__ = ["Admission", "LoginThrottle", "RegistrationThrottle", "normalize_username"]

#: Keys remembered per table; the least recently used go first past this.
MAX_KEYS = 100_000


def normalize_username(username: str) -> str:
    """The form usernames are compared in: surrounding spaces removed, case folded."""
    return username.strip().casefold()


class _Window:
    """Event times per key within a sliding window, least recently used keys evicted past ``max_keys``."""

    def __init__(self, window: float, cap: int, max_keys: int = MAX_KEYS) -> None:
        self.window = window
        self.cap = cap
        self.max_keys = max_keys
        self._events: OrderedDict[object, deque[float]] = OrderedDict()

    def count(self, key: object, now: float) -> int:
        events = self._events.get(key)
        if events is None:
            return 0
        while events and now - events[0] >= self.window:
            events.popleft()
        if not events:
            del self._events[key]
            return 0
        return len(events)

    def add(self, key: object, now: float) -> int:
        self.count(key, now)
        events = self._events.setdefault(key, deque(maxlen=self.cap))
        events.append(now)
        self._events.move_to_end(key)
        while len(self._events) > self.max_keys:
            self._events.popitem(last=False)
        return len(events)

    def oldest(self, key: object) -> float | None:
        events = self._events.get(key)
        return events[0] if events else None

    def forget(self, key: object) -> None:
        self._events.pop(key, None)


@dataclass(frozen=True)
class Admission:
    """What the throttle decided for one login attempt: go ahead after ``delay`` seconds."""

    delay: float = 0.0


class LoginThrottle:
    """Counters of failed logins per (account, address), per account and per address.

    Args:
        max_failures: Failures per (account, address) in ``window_seconds`` before that pair is locked.
        window_seconds: The sliding window.
        max_per_account: Failures per account (any address) before unknown addresses are locked out.
        slow_after: Failures per address before its attempts on unknown names are slowed.
        known_days: How long an address that logged into an account stays known for it.
        max_wait_seconds: Longest a slowed attempt may be queued; longer queues are refused (429).
        slow_step: Seconds between the attempts of a slowed address (one more per 50 failures).
        slow_max: The most ``slow_step`` grows to.
        max_keys: Keys remembered per table.
    """

    def __init__(
        self,
        max_failures: int = 10,
        window_seconds: float = 15 * 60,
        *,
        max_per_account: int = 50,
        slow_after: int = 20,
        known_days: float = 30,
        max_wait_seconds: float = 60.0,
        slow_step: float = 1.0,
        slow_max: float = 4.0,
        max_keys: int = MAX_KEYS,
    ) -> None:
        self.slow_step = slow_step
        self.slow_max = slow_max
        self.max_failures = max_failures
        self.window = window_seconds
        self.max_per_account = max_per_account
        self.slow_after = slow_after
        self.known_seconds = known_days * 86400
        self.max_wait = max_wait_seconds
        self._lock = threading.Lock()
        self._pairs = _Window(window_seconds, max_failures + 1, max_keys)
        self._accounts = _Window(window_seconds, max_per_account + 1, max_keys)
        self._addresses = _Window(window_seconds, 10_000, max_keys)
        self._known: OrderedDict[tuple[str, str], float] = OrderedDict()
        self._max_keys = max_keys
        self._next_slot: dict[str, float] = {}

    @staticmethod
    def _keys(addresses: str | Sequence[str]) -> tuple[str, ...]:
        return (addresses,) if isinstance(addresses, str) else tuple(addresses)

    def _is_known(self, name: str, keys: tuple[str, ...], now: float) -> bool:
        """Whether the account logged in from one of these addresses recently (every key must be
        known: a request counted under a shared address is known only if that address is)."""
        for address in keys:
            expires = self._known.get((name, address))
            if expires is None or expires < now:
                return False
        return True

    def _minutes_left(self, window: _Window, key: object, now: float) -> str:
        oldest = window.oldest(key)
        seconds = self.window - (now - oldest) if oldest is not None else self.window
        return f"{max(1, round(seconds / 60))} minute(s)"

    def admit(self, username: str, addresses: str | Sequence[str]) -> Admission:
        """Decide on an attempt before the password is checked.

        Raises:
            TooManyAttempts: the (account, address) pair is locked, the account is locked for
                addresses it does not know, or the address's queue of slowed attempts is full.
        """
        name = normalize_username(username)
        keys = self._keys(addresses)
        shown = username.strip()[:80]
        now = time.monotonic()
        with self._lock:
            for address in keys:
                if self._pairs.count((name, address), now) >= self.max_failures:
                    wait = self._minutes_left(self._pairs, (name, address), now)
                    raise TooManyAttempts(
                        "too_many_attempts", f"too many failed logins for {shown!r}; try again in {wait}"
                    )
            known = self._is_known(name, keys, now)
            if not known and self._accounts.count(name, now) >= self.max_per_account:
                wait = self._minutes_left(self._accounts, name, now)
                raise TooManyAttempts(
                    "too_many_attempts",
                    f"too many failed logins for {shown!r} from many places; try again in {wait} "
                    "(addresses it logged in from before are not refused)",
                )
            if known:
                return Admission()
            worst = max(keys, key=lambda a: self._addresses.count(a, now))
            failures = self._addresses.count(worst, now)
            if failures < self.slow_after:
                return Admission()
            step = min(self.slow_max, self.slow_step * (1 + (failures - self.slow_after) // 50))
            start = max(now, self._next_slot.get(worst, now))
            if start + step - now > self.max_wait:
                raise TooManyAttempts(
                    "too_many_attempts",
                    "too many login attempts from your address are waiting; try again in a minute",
                )
            self._next_slot[worst] = start + step
            if len(self._next_slot) > self._max_keys:
                self._next_slot = {a: t for a, t in self._next_slot.items() if t > now}
            return Admission(delay=start + step - now)

    def failed(self, username: str, addresses: str | Sequence[str]) -> list[str]:
        """Record a failed login; returns what the failure locked or slowed (for the audit log)."""
        name = normalize_username(username)
        now = time.monotonic()
        events = []
        with self._lock:
            for address in self._keys(addresses):
                if self._pairs.add((name, address), now) == self.max_failures:
                    events.append(f"locked for {address}: {self.max_failures} failures")
                if self._addresses.add(address, now) == self.slow_after:
                    events.append(f"address {address} slowed: {self.slow_after} failures on any name")
            if self._accounts.add(name, now) == self.max_per_account:
                events.append(f"locked for new addresses: {self.max_per_account} failures from any address")
        return events

    def failures(self, username: str, addresses: str | Sequence[str]) -> int:
        """Recent failures of this name from these addresses (the largest count)."""
        name = normalize_username(username)
        now = time.monotonic()
        with self._lock:
            return max(self._pairs.count((name, a), now) for a in self._keys(addresses))

    def succeeded(self, username: str, addresses: str | Sequence[str]) -> None:
        """A login (or registration) of this name from these addresses: their pair counters are
        cleared and the addresses become known to the account."""
        name = normalize_username(username)
        now = time.monotonic()
        with self._lock:
            for address in self._keys(addresses):
                self._pairs.forget((name, address))
                self._known[(name, address)] = now + self.known_seconds
                self._known.move_to_end((name, address))
            while len(self._known) > self._max_keys:
                self._known.popitem(last=False)


class RegistrationThrottle:
    """Accounts registered per address within an hour."""

    WINDOW_SECONDS = 3600.0

    def __init__(self, max_keys: int = MAX_KEYS) -> None:
        self._lock = threading.Lock()
        self._window = _Window(self.WINDOW_SECONDS, 10_000, max_keys)

    def check(self, addresses: str | Sequence[str], limit: int | None) -> None:
        """Raise :class:`TooManyAttempts` when one of ``addresses`` registered ``limit`` accounts this hour."""
        if limit is None:
            return
        now = time.monotonic()
        keys = (addresses,) if isinstance(addresses, str) else tuple(addresses)
        with self._lock:
            for address in keys:
                count = self._window.count(address, now)
                if count >= limit:
                    oldest = self._window.oldest(address) or now
                    minutes = max(1, round((self.WINDOW_SECONDS - (now - oldest)) / 60))
                    raise TooManyAttempts(
                        "too_many_registrations",
                        f"{count} accounts were registered from your address in the last hour (the limit is "
                        f"{limit}); try again in {minutes} minute(s), or ask the challenge hosts",
                    )

    def registered(self, addresses: str | Sequence[str]) -> None:
        """Count a registration from these addresses."""
        now = time.monotonic()
        keys = (addresses,) if isinstance(addresses, str) else tuple(addresses)
        with self._lock:
            for address in keys:
                self._window.add(address, now)
