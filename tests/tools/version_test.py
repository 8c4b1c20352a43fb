#!/usr/bin/env python3
"""Every program prints `NAME X.Y.Z` on --version and exits 0.

Usage: version_test.py PROGRAM... [-- unittest options]
"""
import os
import re
import subprocess
import sys
import unittest

PROGRAMS = []  # set from the command line in __main__


class VersionTest(unittest.TestCase):
    def test_every_program_has_version(self):
        self.assertGreaterEqual(len(PROGRAMS), 6)
        for program in PROGRAMS:
            out = subprocess.run([program, "--version"], capture_output=True, text=True,
                                 timeout=20)
            self.assertEqual(out.returncode, 0, (program, out.stderr))
            name = os.path.basename(program)
            self.assertRegex(out.stdout.strip(), r"^%s \d+\.\d+\.\d+$" % re.escape(name))


if __name__ == "__main__":
    args = sys.argv[1:]
    cut = args.index("--") if "--" in args else len(args)
    PROGRAMS = args[:cut]
    unittest.main(argv=[sys.argv[0]] + args[cut + 1:])
