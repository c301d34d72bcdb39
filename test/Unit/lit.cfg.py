# Runs the GoogleTest binaries under build/unittests as part of the lit suite.
import os

import lit.formats

config.name = "kopt-Unit"
config.suffixes = []
config.test_source_root = os.path.join(config.kopt_obj_root, "unittests")
config.test_exec_root = config.test_source_root
config.test_format = lit.formats.GoogleTest(".", "Tests")
