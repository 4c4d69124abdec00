# Sourced by bin/demo and bin/test: finds a JDK >= 25 and the native packages Rivulet's backends use.
# Nothing here is required by the library itself; it only makes the two README commands work on a fresh
# Debian 12 machine.

rivulet_die() { echo "rivulet: $*" >&2; exit 1; }

# rivulet_find_jdk: the same search mvnw makes.
. "$(dirname "${BASH_SOURCE[0]}")/../.mvn/jdk.sh"

if ! JAVA_HOME=$(rivulet_find_jdk); then
  rivulet_die "no JDK 25 or newer found (looked at JAVA_HOME='${JAVA_HOME:-}', /usr/lib/jvm/*, /opt/java/*, PATH).
Install one (for example Temurin 25) and set JAVA_HOME to it, then run this again."
fi
export JAVA_HOME
export PATH="$JAVA_HOME/bin:$PATH"

# Native packages: libfabric (runtime, headers for the ABI probes, fi_info), gcc for the probes and C peers,
# iproute2 for the network-namespace tests. Installed when we are root; otherwise we stop with the command.
rivulet_native_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "rivulet: not a Debian system; native backends need: ${missing[*]} (tests that need them report themselves skipped)" >&2
    return 0
  fi
  if [ "$(id -u)" -eq 0 ]; then
    echo "rivulet: installing ${missing[*]}" >&2
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}") >&2 \
      || rivulet_die "apt-get could not install: ${missing[*]}"
  else
    rivulet_die "missing native packages. Run:
  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${missing[*]}
then run this again."
  fi
}
