# expect_tree ROOT PREFIX [MAN]: fails, naming the file, unless ROOT holds what
# an install to PREFIX must put there (man pages too when MAN is "man").
# Sourced by install_test.sh and package_test.sh.
expect_tree() {
  local root=$1 prefix=$2 man=${3:-} f p missing=0
  local files=(
    "$prefix/sbin/locschedd"
    "$prefix/bin/locschedctl" "$prefix/bin/locsched-agents" "$prefix/bin/locsched-sim"
    "$prefix/bin/locsched-solve" "$prefix/bin/locsched-tail"
    "$prefix/lib/systemd/system/locsched.service"
    "$prefix/lib/sysusers.d/locsched.conf"
    /etc/locsched/locsched.toml /etc/locsched/locsched.toml.default
    "$prefix/share/locsched/plot_sweep.py" "$prefix/share/locsched/swim_synth.py"
    "$prefix/share/bash-completion/completions/locschedctl"
    "$prefix/share/doc/locsched/README.md" "$prefix/share/doc/locsched/docs/operations.md"
    "$prefix/share/doc/locsched/docs/config.md" "$prefix/share/doc/locsched/docs/protocol.md"
  )
  if [ "$man" = man ]; then
    files+=("$prefix/share/man/man8/locschedd.8.gz")
    for p in locschedctl locsched-agents locsched-sim locsched-solve locsched-tail; do
      files+=("$prefix/share/man/man1/$p.1.gz")
    done
  fi
  for f in "${files[@]}"; do
    if [ ! -f "$root$f" ]; then echo "missing: $f"; missing=1; fi
  done
  for f in sbin/locschedd bin/locschedctl bin/locsched-agents bin/locsched-sim \
           bin/locsched-solve bin/locsched-tail share/locsched/plot_sweep.py; do
    [ ! -f "$root$prefix/$f" ] || [ -x "$root$prefix/$f" ] || { echo "not executable: $prefix/$f"; missing=1; }
  done
  local unit="$root$prefix/lib/systemd/system/locsched.service"
  if [ -f "$unit" ] &&
     ! grep -q "^ExecStart=$prefix/sbin/locschedd --config /etc/locsched/locsched.toml" "$unit"; then
    echo "the unit does not start $prefix/sbin/locschedd:"; grep '^ExecStart' "$unit"; missing=1
  fi
  if [ "$man" = man ]; then
    local name page
    for f in "$root$prefix"/share/man/man*/*.gz; do
      # help2man's page: the title line with the program's --version, its NAME
      # summary and the --help text.
      name=$(basename "$f"); name=${name%.*.gz}
      page=$(zcat "$f")
      grep -q "^\.TH ${name^^} .*\"$name [0-9][0-9.]*\"" <<<"$page" || { echo "no title in $f"; missing=1; }
      grep -q "^$name \\\\- [a-z]" <<<"$page" || { echo "no NAME summary in $f"; missing=1; }
      grep -q '^\.SH DESCRIPTION' <<<"$page" || { echo "no DESCRIPTION in $f"; missing=1; }
    done
  fi
  return $missing
}
