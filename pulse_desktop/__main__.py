from pulse_desktop.app import main

raise SystemExit(main())
