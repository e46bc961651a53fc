import WebKitShell
WebKitEcho.main()
