import sys

from vkdispatch.cli import main

sys.exit(main())
