#!/usr/bin/env bash
# Installs Debian's chromium for the simulator's report test
# (simulator/report: TestReportRendersInChromium), which renders the HTML report
# headless and checks the charts are in the DOM. CI sets QUOKKA_REQUIRE_BROWSER so
# that test fails instead of skipping; this script makes sure the browser is there.
# It does nothing when /usr/bin/chromium already exists, so it is cheap to call on
# every run.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then
  exit 0
fi

if [[ "$(id -u)" -ne 0 ]]; then
  echo "install-chromium.sh: chromium is missing and installing it needs root (apt-get)" >&2
  exit 1
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update
apt-get install -y chromium
