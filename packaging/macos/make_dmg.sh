#!/usr/bin/env bash
# macOS disk image of the desktop bundle: dist/qrtune.app (PyInstaller builds it from
# packaging/qrtune.spec on macOS) in dist/qrtune-VERSION-macos.dmg, with a link to /Applications
# to drag it onto. Run on macOS after `pyinstaller packaging/qrtune.spec` (.github/workflows/desktop.yml).
# The .app is not signed or notarised: Gatekeeper asks the user to confirm the first start.
set -euo pipefail
cd "$(dirname "$0")/../.."
test -d dist/qrtune.app || { echo "no dist/qrtune.app: run pyinstaller packaging/qrtune.spec first" >&2; exit 1; }
version=$(dist/qrtune.app/Contents/MacOS/qrtune --version | cut -d' ' -f2)
stage=$(mktemp -d)
cp -R dist/qrtune.app "$stage/"
ln -s /Applications "$stage/Applications"
hdiutil create -volname qrtune -srcfolder "$stage" -ov -format UDZO "dist/qrtune-$version-macos.dmg"
rm -rf "$stage"
echo "wrote dist/qrtune-$version-macos.dmg"
