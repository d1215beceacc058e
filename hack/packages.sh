#!/usr/bin/env bash
# Installs the Debian packages the tests need beyond Go, git and make, when
# missing: the local node's runtime, network plugins and packet filters
# (make test-node), and Chromium for the dashboard's browser test. apt-get
# needs root; without it the missing ones are named and nothing changes.
set -euo pipefail

packages=(containerd runc containernetworking-plugins iptables iproute2 procps chromium)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
((${#missing[@]})) || exit 0

if [[ $(id -u) != 0 ]]; then
  echo "packages: the tests need Debian's ${missing[*]}; run as root, or: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
apt-get update -qq
# Chromium's recommended packages bring the fonts its screenshots use.
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}"
