; Inno Setup script: the Windows installer of the qrtune desktop bundle (dist\qrtune\, `make package`
; or pyinstaller packaging\qrtune.spec). Built by .github/workflows/desktop.yml:
;   ISCC.exe /DAppVersion=0.1.dev600+gabc1234 packaging\windows\qrtune.iss
; -> dist\qrtune-VERSION-windows-setup.exe. Installs per user or for all users (the user chooses),
; adds a Start menu entry that opens the workbench, and uninstalls cleanly. The results store and
; autosaves live in %LOCALAPPDATA%\qrtune and are left in place on uninstall.
#ifndef AppVersion
  #define AppVersion "0+unknown"
#endif

[Setup]
AppId={{6F1E0A52-8C37-4B1D-9D4B-2B7E5C1A9F30}
AppName=qrtune
AppVerName=qrtune {#AppVersion}
AppVersion={#AppVersion}
AppPublisher=The qrtune authors
AppComments=The Q Replication Tuning Workbench
DefaultDirName={autopf}\qrtune
DefaultGroupName=qrtune
DisableProgramGroupPage=yes
LicenseFile=..\..\LICENSE
OutputDir=..\..\dist
OutputBaseFilename=qrtune-{#AppVersion}-windows-setup
Compression=lzma2
SolidCompression=yes
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog commandline
UninstallDisplayIcon={app}\qrtune.exe
WizardStyle=modern

[Files]
Source: "..\..\dist\qrtune\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\qrtune workbench"; Filename: "{app}\qrtune.exe"; Comment: "Open the Q Replication Tuning Workbench"
Name: "{group}\Uninstall qrtune"; Filename: "{uninstallexe}"

[Run]
Filename: "{app}\qrtune.exe"; Description: "Open the workbench"; Flags: nowait postinstall skipifsilent
