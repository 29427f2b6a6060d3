from initlint.cli import main

raise SystemExit(main())
