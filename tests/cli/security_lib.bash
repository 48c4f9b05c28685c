# SPDX-License-Identifier: BSD-3-Clause
# Shared by the security_* tests: the attacker, a second user named
# nunatak_tester, created when absent. Sourcing it skips the test (exit 2,
# said) when that is impossible: not root, or no useradd.
attacker=nunatak_tester
if [ "$(id -u)" != 0 ]; then
	echo "skip: the attacker is a second user, and only root can create one and hand it files"
	exit 2
fi
if ! getent passwd "$attacker" >/dev/null; then
	command -v useradd >/dev/null || { echo "skip: useradd missing: cannot create the attacker user $attacker"; exit 2; }
	# Two tests may race to create it: the loser finds it made.
	useradd --system --no-create-home --shell /usr/sbin/nologin "$attacker" 2>/dev/null ||
		getent passwd "$attacker" >/dev/null ||
		{ echo "skip: cannot create the attacker user $attacker"; exit 2; }
fi
attacker_uid=$(id -u "$attacker")
# Hands a path to the attacker, as if the attacker had written it.
as_attacker() { chown -h "$attacker" "$@"; }
