#!/usr/bin/env bash
# Installs the Debian packages bridgescope needs, when missing.
# As root: apt-get install -y. Otherwise: prints the exact command and exits 1.
# Usage: tools/setup.sh [--with-browser] [--with-webkit]
#   --with-browser: chromium (~350 MB); --with-webkit: WebKitGTK's headers and Xvfb for
#   bridgescope-webkit (tools/webkit, ~180 MB); only when asked.
set -euo pipefail
pkgs=(libpcap-dev libzstd-dev zlib1g-dev libturbojpeg0-dev zstd jq tcpdump tshark)
for arg in "$@"; do
  case "$arg" in
    --with-browser) pkgs+=(chromium) ;;
    --with-webkit) pkgs+=(libwebkit2gtk-4.1-dev xvfb libgtk-3-bin util-linux) ;;  # broadwayd: libgtk-3-bin; setpriv: util-linux
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)  # the JavaScript tap's tests (tools/taps/js)
command -v javac >/dev/null 2>&1 || pkgs+=(default-jdk-headless)  # the Java tap (tools/taps/android)
command -v python3 >/dev/null 2>&1 || pkgs+=(python3)  # the second host the black-box fuzzer is tested against (tools/hosts/python)
# pip: the OTLP tests install opentelemetry-proto from PyPI into .build/otlp-python (tools/otlp/receiver.py)
pkgs+=(python3-pip)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]} == 0)); then exit 0; fi
if [[ $(id -u) -ne 0 ]]; then
  echo "bridgescope needs these Debian packages: ${missing[*]}" >&2
  echo "Install them with:" >&2
  echo "  sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "installing: ${missing[*]}" >&2
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
