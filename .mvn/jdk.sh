# Finds a JDK 25 or newer for the build (sourced by mvnw and bin/env.sh; POSIX sh).
#
# JAVA_HOME first, then the usual system JVM folders ($RIVULET_JDK_DIRS, space-separated, replaces them), then the
# java on PATH. Maven itself runs on the JDK found, since .mvn/jvm.config holds an option only JDK 25 knows.

# Prints the feature release of the JDK at $1 (e.g. 25), or nothing when $1 is not a JDK.
rivulet_jdk_release() {
  [ -x "$1/bin/javac" ] && [ -x "$1/bin/java" ] || return 0
  _rv=$("$1/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1)
  case "$_rv" in 1.*) _rv=${_rv#1.} ;; esac
  echo "${_rv%%.*}"
}

# Prints the home of the first JDK >= 25 among the candidates; fails when there is none.
rivulet_find_jdk() {
  _onpath=$(command -v javac 2>/dev/null || true)
  [ -n "$_onpath" ] && _onpath=$(dirname "$(dirname "$(readlink -f "$_onpath")")")
  # Globs expand here even where the caller runs with noglob (mvnw does).
  case $- in *f*) _noglob=1; set +f ;; *) _noglob= ;; esac
  _dirs=${RIVULET_JDK_DIRS-"/usr/lib/jvm/* /opt/java/* /opt/jdk* /usr/local/jdk* $HOME/.sdkman/candidates/java/*"}
  _found=
  for _c in ${JAVA_HOME:-} $_dirs $_onpath; do
    [ -n "$_c" ] && [ -d "$_c" ] || continue
    _r=$(rivulet_jdk_release "$_c")
    if [ -n "$_r" ] && [ "$_r" -ge 25 ] 2>/dev/null; then _found=$_c; break; fi
  done
  [ -n "$_noglob" ] && set -f
  [ -n "$_found" ] || return 1
  echo "$_found"
}
