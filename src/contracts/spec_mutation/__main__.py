"""python -m contracts.spec_mutation"""

from contracts.spec_mutation.main import main

raise SystemExit(main())
