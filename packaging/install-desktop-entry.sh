#!/bin/sh
# Add Pulse to the desktop's application menu for the current user (freedesktop.org):
# the icon into ~/.local/share/icons/hicolor, the .desktop entry into ~/.local/share/applications
# with Exec/TryExec pointing at this bundle. Run it from the unpacked bundle folder:
#   ./install-desktop-entry.sh            (uninstall: ./install-desktop-entry.sh --remove)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data=${XDG_DATA_HOME:-$HOME/.local/share}
apps="$data/applications"
icons="$data/icons/hicolor"
if [ "${1:-}" = "--remove" ]; then
    rm -f "$apps/pulse.desktop" "$icons/256x256/apps/pulse.png" "$icons/scalable/apps/pulse.svg"
    exit 0
fi
test -x "$here/pulse-desktop" || { echo "run this from the Pulse bundle folder" >&2; exit 1; }
mkdir -p "$apps" "$icons/256x256/apps" "$icons/scalable/apps"
cp "$here/_internal/resources/icons/pulse.png" "$icons/256x256/apps/pulse.png"
cp "$here/_internal/resources/icons/pulse.svg" "$icons/scalable/apps/pulse.svg"
sed -e "s|^Exec=.*|Exec=\"$here/pulse-desktop\"|" -e "s|^TryExec=.*|TryExec=$here/pulse-desktop|" \
    "$here/pulse.desktop" > "$apps/pulse.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$apps" || true
echo "installed: $apps/pulse.desktop"
