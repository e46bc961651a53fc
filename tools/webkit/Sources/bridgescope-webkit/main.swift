import WebKitShell
ShellCommand.main()
