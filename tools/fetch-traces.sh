#!/usr/bin/env bash
# Fetches the public workload traces locsched replays (tools/replay.sh --trace FILE,
# locsched-tail) into a folder you name, checks each file's SHA-256 and refuses a
# mismatch (the bad file is deleted, the script exits 1). Files already present with
# the right sum are kept. Every file is a byte-for-byte copy from a public repository,
# pinned at a commit:
#   swim-fb/        SWIM's Facebook 2009 job traces (SWIMProjectUCB/SWIM, BSD-3-Clause)
#   hadoop-rumen/   Hadoop 0.20 JobHistory and Rumen JSON samples (Apache Hadoop test
#                   data, Apache-2.0)
#   google-clusterdata-2011-2/job_events/  the first 10 of 500 job_events parts of
#                   Google's 2011 cluster trace (CC-BY 4.0: Reiss, Wilkes, Hellerstein)
#
#   bash tools/fetch-traces.sh DIR [--only swim|rumen|google] [--from SOURCE]
#     --only G      fetch one group only (may be repeated)
#     --from SOURCE fetch from a mirror with the same layout as DIR (a folder or a URL)
#                   instead of the original repositories
# Then, e.g.:
#   bash tools/demo.sh --trace DIR/swim-fb/FB-2009_samples_24_times_1hr_0.tsv
#   bash tools/demo.sh --format jobhistory --trace DIR/hadoop-rumen/sample-job-tracker-logs.gz
set -euo pipefail

swim=https://raw.githubusercontent.com/SWIMProjectUCB/SWIM/1277c5168034c9e4a690a07cbb1d498619000da6/workloadSuite
mr1=https://raw.githubusercontent.com/moutai/hadoop-common/514156acd9c7e5c6ade163130fc5512d931bf867/src/test/tools/data/rumen
sls=https://raw.githubusercontent.com/ekoontz/hadoop-common/9fb842cf802c7702e856b79b703171e4d93ca390/hadoop-tools/hadoop-sls/src/main/data
google=https://raw.githubusercontent.com/vivekaxl/GoogleClusterData/7f521a12ca6c4f3da5cbc10338fec960cd17d28c/zip_stuff

# group  path in DIR  origin URL  SHA-256
FILES="
swim swim-fb/FB-2009_samples_24_times_1hr_0.tsv $swim/FB-2009_samples_24_times_1hr_0.tsv 5033ea98faed398b132957e4555c9ba88653d1ffaac470f370b761b79cd44c19
swim swim-fb/FB-2009_samples_24_times_1hr_1.tsv $swim/FB-2009_samples_24_times_1hr_1.tsv b6056e0f7686b475935ce613a96b1916c84daf52dfa1aff82172d87900e961d8
rumen hadoop-rumen/sample-job-tracker-logs.gz $mr1/small-trace-test/sample-job-tracker-logs.gz 172ec5343ccc624b70b78392c3072623545a4d566b8352f24ccbac53366bbef5
rumen hadoop-rumen/input-trace.json $mr1/zombie/input-trace.json b6744a401274635dbcf1757962a48e71caab74c0e70c940666bb0b7b714d3425
rumen hadoop-rumen/input-topology.json $mr1/zombie/input-topology.json deece215fe648c63d17f5571fcce94436171c46d2acabf001c8e1b42a2906d90
rumen hadoop-rumen/2jobs2min-rumen-jh.json $sls/2jobs2min-rumen-jh.json a8ba9672cd4fc5c3ab8ecd5f764797830411a270840efdfcc077d9381e62a21b
google google-clusterdata-2011-2/job_events/part-00000-of-00500.csv.gz $google/part-00000-of-00500.csv.gz 921fa8e019fb8ec5be9a2cb096912850d5959da33d9fb3b46807d9d0a9eae86f
google google-clusterdata-2011-2/job_events/part-00001-of-00500.csv.gz $google/part-00001-of-00500.csv.gz 8d8c0278664757c79b2ce865d3e4e83531abf836e7ed6da3321b8309a3099c58
google google-clusterdata-2011-2/job_events/part-00002-of-00500.csv.gz $google/part-00002-of-00500.csv.gz d8ef067adfc1e968816d02ca1f29fdae9fe5d5c92e3a893c72e7754189e22556
google google-clusterdata-2011-2/job_events/part-00003-of-00500.csv.gz $google/part-00003-of-00500.csv.gz 91560eb58db4b79e420c87b61a2f1c391ff5f35a256a6ec822e39d4bd9419626
google google-clusterdata-2011-2/job_events/part-00004-of-00500.csv.gz $google/part-00004-of-00500.csv.gz 4957d5114389fe282abf7b73719aa7a61026f1b535337a0bfb067d42cf2442df
google google-clusterdata-2011-2/job_events/part-00005-of-00500.csv.gz $google/part-00005-of-00500.csv.gz 786e1ca0cf5e726a6d92467162cb4ac8f65d3c1e85a14e561c1292e4117f4821
google google-clusterdata-2011-2/job_events/part-00006-of-00500.csv.gz $google/part-00006-of-00500.csv.gz 1bf0218832fd22569b182f8df47f071017f79119a78fdf428f099330db6a4c33
google google-clusterdata-2011-2/job_events/part-00007-of-00500.csv.gz $google/part-00007-of-00500.csv.gz 57677cd0d18129a8b3bb1a9ec01e839da7bb02deb62ba144090b6f9ce5f09b75
google google-clusterdata-2011-2/job_events/part-00008-of-00500.csv.gz $google/part-00008-of-00500.csv.gz d6a9f69da401055ed441808bb50aae14649f2b5813147358778e3a11de94fbc3
google google-clusterdata-2011-2/job_events/part-00009-of-00500.csv.gz $google/part-00009-of-00500.csv.gz a01d4058f13170fbc60d369bdfbfcc09d387273b294b90c954a4104b6bf40cb1
"

usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }
dest=
from=
only=()
while [ $# -gt 0 ]; do
  case "$1" in
    --only)
      case "${2:-}" in swim|rumen|google) only+=("$2") ;;
        *) echo "fetch-traces.sh: --only: '${2:-}' is not swim, rumen or google" >&2; exit 2 ;;
      esac
      shift 2 ;;
    --from) from=${2:?--from needs a folder or URL}; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) echo "fetch-traces.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    *) [ -z "$dest" ] || { echo "fetch-traces.sh: one folder only ('$dest', '$1')" >&2; exit 2; }
       dest=$1; shift ;;
  esac
done
[ -n "$dest" ] || { echo "fetch-traces.sh: name the folder to fetch into (see --help)" >&2; exit 2; }

# fetch URL_OR_PATH OUT: one file, from a URL or a local path.
fetch() {
  case "$1" in
    http://*|https://*|file://*)
      if command -v curl >/dev/null; then curl -fsSL --retry 2 -o "$2" "$1"
      else wget -q -O "$2" "$1"; fi ;;
    *) cp "$1" "$2" ;;
  esac
}

wanted() {
  [ ${#only[@]} -eq 0 ] && return 0
  local g; for g in "${only[@]}"; do [ "$g" = "$1" ] && return 0; done
  return 1
}

bad=0
fetched=0
kept=0
while read -r group path url sum; do
  [ -n "$group" ] && wanted "$group" || continue
  out=$dest/$path
  if [ -f "$out" ] && [ "$(sha256sum "$out" | cut -d' ' -f1)" = "$sum" ]; then
    kept=$((kept + 1)); continue
  fi
  mkdir -p "$(dirname "$out")"
  source_of_file=$url
  [ -n "$from" ] && source_of_file=${from%/}/$path
  if ! fetch "$source_of_file" "$out.part"; then
    rm -f "$out.part"
    echo "fetch-traces.sh: cannot fetch $source_of_file" >&2
    bad=1; continue
  fi
  got=$(sha256sum "$out.part" | cut -d' ' -f1)
  if [ "$got" != "$sum" ]; then
    rm -f "$out.part"
    echo "fetch-traces.sh: $path: SHA-256 mismatch, refused (expected $sum, got $got)" >&2
    bad=1; continue
  fi
  mv "$out.part" "$out"
  echo "fetch-traces.sh: $path ok"
  fetched=$((fetched + 1))
done <<<"$FILES"
echo "fetch-traces.sh: $fetched fetched, $kept already present in $dest"
[ "$bad" -eq 0 ] || { echo "fetch-traces.sh: some files were refused or missing (see above)" >&2; exit 1; }
echo "replay one with: bash tools/demo.sh --trace $dest/swim-fb/FB-2009_samples_24_times_1hr_0.tsv"
