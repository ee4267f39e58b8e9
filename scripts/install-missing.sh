#!/usr/bin/env bash
# install-missing.sh PACKAGE...: apt-get installs those of the Debian packages that are not
# installed yet (nothing, not even apt-get update, when all are). Run as root (or with sudo).
set -euo pipefail
missing=()
for p in "$@"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update
  apt-get install -y --no-install-recommends "${missing[@]}"
fi
