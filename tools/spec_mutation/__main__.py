"""python -m tools.spec_mutation"""

from tools.spec_mutation.main import main

raise SystemExit(main())
