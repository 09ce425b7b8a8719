#!/usr/bin/env bash
# Installs the Debian packages of deps/debian-packages.txt that are missing, with apt-get
# (directly as root, through sudo otherwise). Prints what it installs; does nothing when all
# are present.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mapfile -t wanted < <(grep -Ev '^\s*(#|$)' "$here/debian-packages.txt")

missing=()
for package in "${wanted[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#wanted[@]} Debian packages are installed"
  exit 0
fi

if ! command -v apt-get >/dev/null; then
  echo "deps: missing packages (${missing[*]}) and no apt-get: this script needs Debian 12." >&2
  exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
  sudo=()
elif command -v sudo >/dev/null; then
  sudo=(sudo)
else
  echo "deps: missing packages: ${missing[*]}" >&2
  echo "deps: run as root or install sudo, or install them yourself:" >&2
  echo "      apt-get install ${missing[*]}" >&2
  exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
