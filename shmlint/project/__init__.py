"""Evidence from the checked repository itself: the files a container runs, read (never imported or run) within a
budget. ``index`` is the only module that touches the disk; the others read text it hands them."""
