#!/usr/bin/env bash
# Usage: obtain-libsvm.sh DOWNLOAD_DIR
#
# Puts the pristine LIBSVM 3.24 source tarball into DOWNLOAD_DIR, as Debian ships it:
# libsvm_3.24+ds.orig.tar.xz (upstream's libsvm-3.24.tar.gz minus its Windows binaries).
# It comes from the distribution's source package (apt-get source --tar-only libsvm), so it
# works on Debian machines whose only network access is their apt mirror.
#
# If no deb-src entries are configured, they are derived from the machine's own apt sources
# (this needs root): every stanza of /etc/apt/sources.list.d/*.sources with Types: deb, and every
# "deb" line of /etc/apt/sources.list and /etc/apt/sources.list.d/*.list, is written again with
# type deb-src to /etc/apt/sources.list.d/ppk-deb-src.sources; then apt-get update runs.
#
# Does nothing if DOWNLOAD_DIR already holds the tarball with the right checksum.
set -euo pipefail

version=3.24+ds
tarball=libsvm_${version}.orig.tar.xz
sha256=fd8fbf3179765dfcfdf949184b4b2c3c1a3a03834549ce48d42cd0269858f8c3
apt_dir=${PPK_APT_DIR:-/etc/apt}      # overridable for testing the derivation
generated=$apt_dir/sources.list.d/ppk-deb-src.sources

die() { echo "obtain-libsvm.sh: error: $*" >&2; exit 1; }
note() { echo "obtain-libsvm.sh: $*" >&2; }

(($# == 1)) || die "usage: obtain-libsvm.sh DOWNLOAD_DIR"
dir=$1
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)

tarball_ok() { [[ -f $1 ]] && [[ $(sha256sum "$1" | cut -d' ' -f1) == "$sha256" ]]; }

if tarball_ok "$dir/$tarball"; then
  exit 0
fi

command -v apt-get >/dev/null || die "apt-get not found: this is not a Debian-like system.
  Download LIBSVM 3.24 yourself and configure with -DLIBSVM_SOURCE=<directory or tarball>."

# Are deb-src entries configured already?
have_deb_src() {
  local f
  for f in "$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list; do
    [[ -f $f ]] && grep -Eq '^[[:space:]]*deb-src[[:space:]]' "$f" && return 0
  done
  for f in "$apt_dir"/sources.list.d/*.sources; do
    [[ -f $f ]] && grep -Eiq '^types:.*(^|[[:space:]])deb-src([[:space:]]|$)' "$f" && return 0
  done
  return 1
}

# deb822 stanzas with "deb" among their Types, with Types set to deb-src
derive_from_sources() {
  awk '
    function flush() {
      if (n > 0 && is_deb && enabled) {
        if (printed) print ""
        for (i = 1; i <= n; i++) print lines[i]
        printed = 1
      }
      n = 0; is_deb = 0; enabled = 1
    }
    BEGIN { n = 0; is_deb = 0; enabled = 1; printed = 0 }
    FNR == 1 { flush() }
    /^[[:space:]]*$/ { flush(); next }
    /^#/ { next }
    {
      line = $0
      if (tolower(line) ~ /^types:/) {
        split(substr(line, 7), types, /[[:space:]]+/)
        for (t in types) if (types[t] == "deb") is_deb = 1
        line = "Types: deb-src"
      } else if (tolower(line) ~ /^enabled:[[:space:]]*no/) {
        enabled = 0
      }
      lines[++n] = line
    }
    END { flush() }
  ' "$@"
}

# one-line "deb [options] uri suite [components]" entries as deb822 stanzas of type deb-src
derive_from_lists() {
  awk '
    function field(opt,   parts, i, name) {
      if (opt == "arch") return "Architectures"
      if (opt == "lang") return "Languages"
      if (opt == "target") return "Targets"
      n = split(opt, parts, "-"); name = ""
      for (i = 1; i <= n; i++) name = name (i > 1 ? "-" : "") toupper(substr(parts[i], 1, 1)) substr(parts[i], 2)
      return name
    }
    /^[[:space:]]*deb[[:space:]]/ {
      sub(/#.*/, "")
      k = 2; opts = ""
      if ($2 ~ /^\[/) {
        # options, possibly spread over several words: [ a=b c=d ]
        s = ""
        for (k = 2; k <= NF; k++) { s = s " " $k; if ($k ~ /\]$/) { k++; break } }
        gsub(/[\[\]]/, "", s)
        opts = s
      }
      if (k + 1 > NF) next
      uri = $k; suite = $(k + 1); comps = ""
      for (j = k + 2; j <= NF; j++) comps = comps (comps == "" ? "" : " ") $j
      if (uri ~ /^cdrom:/) next
      if (printed) print ""
      print "Types: deb-src"
      print "URIs: " uri
      print "Suites: " suite
      if (comps != "") print "Components: " comps
      m = split(opts, o, /[[:space:]]+/)
      for (i = 1; i <= m; i++) {
        if (o[i] == "" || o[i] !~ /=/ || o[i] ~ /[+-]=/) continue
        key = substr(o[i], 1, index(o[i], "=") - 1)
        val = substr(o[i], index(o[i], "=") + 1)
        gsub(/,/, " ", val)
        print field(key) ": " val
      }
      printed = 1
    }
  ' "$@"
}

if ! have_deb_src; then
  ((EUID == 0)) || die "no deb-src entries are configured, and adding them needs root.
  Run this script as root once, add deb-src entries yourself, or configure with
  -DLIBSVM_SOURCE=<LIBSVM 3.24 directory or tarball>."
  sources=() lists=()
  for f in "$apt_dir"/sources.list.d/*.sources; do [[ -f $f ]] && sources+=("$f"); done
  for f in "$apt_dir"/sources.list "$apt_dir"/sources.list.d/*.list; do [[ -f $f ]] && lists+=("$f"); done
  derived=$(
    { ((${#sources[@]})) && derive_from_sources "${sources[@]}"; } || true
    echo
    { ((${#lists[@]})) && derive_from_lists "${lists[@]}"; } || true
  )
  grep -q '^Types: deb-src' <<<"$derived" || die "found no deb entries in $apt_dir to derive deb-src entries from"
  {
    echo "# Written by ppk's libsvm-patch/obtain-libsvm.sh: the deb entries of this machine as deb-src,"
    echo "# so that apt-get source can fetch LIBSVM's source package. Safe to delete."
    echo
    # squeeze runs of blank lines between stanzas
    awk 'NF { print; blank = 0; seen = 1; next } seen && !blank { print ""; blank = 1 }' <<<"$derived"
  } >"$generated"
  note "wrote $generated"
fi

work=$(mktemp -d "$dir/apt-source.XXXXXX")
trap 'rm -rf "$work"' EXIT

fetch() {
  # as root, apt would try (and fail) to drop privileges to _apt for our temporary directory
  local sandbox=()
  ((EUID != 0)) || sandbox=(-o APT::Sandbox::User=root)
  (cd "$work" && apt-get "${sandbox[@]}" source --tar-only libsvm) >&2
}
if ! fetch; then
  note "apt-get source failed; running apt-get update and trying again"
  apt-get update >&2 || note "apt-get update reported errors (some repositories may lack source indices)"
  fetch || die "apt-get source --tar-only libsvm failed.
  Configure with -DLIBSVM_SOURCE=<LIBSVM 3.24 directory or tarball> instead."
fi

[[ -f $work/$tarball ]] || die "apt-get source did not provide $tarball (got: $(ls "$work" | tr '\n' ' '));
  the distribution's libsvm is not version 3.24. Configure with -DLIBSVM_SOURCE=<LIBSVM 3.24 directory or tarball>."
tarball_ok "$work/$tarball" || die "$tarball has the wrong sha256 (expected $sha256)"
mv "$work/$tarball" "$dir/$tarball"
note "obtained $dir/$tarball"
