# Sourced by the scripts: finds the Swift toolchain when it is not on PATH.
if ! command -v swift >/dev/null && [[ -x /opt/swift/usr/bin/swift ]]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi
