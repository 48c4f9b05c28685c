# Sourced by the e2e tests that run nunatak as an ordinary user: `nobody`
# when the suite runs as root (skip without runuser or that user), the
# current user otherwise. Sets as=(runuser -u nobody --) or as=().
as=()
if [ "$(id -u)" = 0 ]; then
	command -v runuser >/dev/null && id nobody >/dev/null 2>&1 || {
		echo "skip: root without runuser or a nobody user to run as"; exit 2; }
	as=(runuser -u nobody --)
fi

# What the other user runs is copied into a directory made here, with modes
# that let that user in: the clone may sit under a private (0700) parent,
# which `nobody` cannot enter (nunatak finds lib/ beside itself). Sets tmp
# (removed at exit), NUNATAK (the copy) and home (0700, a home of its own:
# nunatak refuses a cache under a world-writable directory). The caller
# puts its files in $home, then hands it over:
#   [ ${#as[@]} -eq 0 ] || chown -R nobody "$home"
other_user_setup() {
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	chmod 755 "$tmp"
	if [ ${#as[@]} -gt 0 ] && ! "${as[@]}" test -x "$tmp"; then
		rm -rf "$tmp"
		tmp=$(mktemp -d -p /tmp)
		chmod 755 "$tmp"
		"${as[@]}" test -x "$tmp" || { echo "skip: nobody cannot enter $tmp (nor TMPDIR)"; exit 2; }
	fi
	mkdir -m 755 "$tmp/nunatak" "$tmp/nunatak/lib"
	cp "$NUNATAK" "$tmp/nunatak/"
	cp -P "$NUNATAK_BUILD_DIR"/lib/libscope_profiler.so* "$tmp/nunatak/lib/"
	chmod -R a+rX "$tmp/nunatak"
	NUNATAK=$tmp/nunatak/$(basename "$NUNATAK")
	home=$tmp/home
	mkdir -m 700 "$home"
}
