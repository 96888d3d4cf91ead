from contracts.cli.commands import main

raise SystemExit(main())
