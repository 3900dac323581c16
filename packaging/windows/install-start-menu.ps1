# Add Pulse to the Start menu for the current user: a shortcut to pulse-desktop.exe in this
# folder (the unpacked bundle), with its icon. Nothing else is written; no administrator rights.
#   powershell -ExecutionPolicy Bypass -File install-start-menu.ps1           (install)
#   powershell -ExecutionPolicy Bypass -File install-start-menu.ps1 -Remove   (uninstall)
param([switch]$Remove)
$ErrorActionPreference = "Stop"
$here = Split-Path -Parent $MyInvocation.MyCommand.Path
$programs = [Environment]::GetFolderPath("Programs")   # %APPDATA%\Microsoft\Windows\Start Menu\Programs
$link = Join-Path $programs "Pulse.lnk"
if ($Remove) {
    if (Test-Path $link) { Remove-Item $link }
    Write-Output "removed: $link"
    exit 0
}
$target = Join-Path $here "pulse-desktop.exe"
if (-not (Test-Path $target)) {
    Write-Error "run this from the Pulse bundle folder (no pulse-desktop.exe in $here)"
    exit 1
}
$shell = New-Object -ComObject WScript.Shell
$shortcut = $shell.CreateShortcut($link)
$shortcut.TargetPath = $target
$shortcut.WorkingDirectory = $here
$shortcut.IconLocation = "$target,0"
$shortcut.Description = "See and curate what an AI companion remembers"
$shortcut.Save()
Write-Output "installed: $link"
