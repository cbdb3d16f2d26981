#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""KUnit results of a guest, as the base tree's kunit.py parse reads them.

usage: kunit-results.py KUNIT_DIR KTAP_FILE REPORT

Parses KTAP_FILE (a kernel log) with KUNIT_DIR/kunit_parser.py, the parser
behind "kunit.py parse", writes kunit.py's own report to REPORT, and prints
one result per line for tools/tests/run, a tab between status and text:

  ok|FAIL|skip <tab> suite.case[ parameter][ # SKIP reason]

kunit.py checks the KTAP itself (version lines, plans, test numbers,
missing results, crashes); each error it records is a FAIL line here. Two
things it does not count are also FAIL lines: a case or suite whose own
result line says "not ok" while none of its parameters failed (kunit.py's
totals count only the leaves), and a log without any KUnit result.
"""

import re
import sys


def skip_reason(text, name):
	"""The reason after "# SKIP" on NAME's result line, if it has one."""
	m = re.search(r'\bok \d+ ' + re.escape(name) + r' # SKIP ?(.*)', text)
	return m.group(1).strip() if m else ''


def node_name(path, test):
	"""suite.case[.parameter], or what stands for a result never printed."""
	return '.'.join(path + [test.name or '(missing result)'])


def own_errors(test):
	"""Errors kunit.py recorded on TEST itself, less those of its subtests."""
	return test.counts.errors - sum(s.counts.errors for s in test.subtests)


def results(test, path, text, parser):
	"""Yield (status, text) for TEST and everything under it."""
	ok = (parser.TestStatus.SUCCESS, parser.TestStatus.SKIPPED)
	name = node_name(path, test)
	failed_below = False

	for sub in test.subtests:
		for status, line in results(sub, path + [test.name], text, parser):
			failed_below |= status == 'FAIL'
			yield status, line
	if own_errors(test):
		yield 'FAIL', f'{name}: {own_errors(test)} KTAP error(s), see the report'
	if test.subtests:
		if test.status not in ok and not failed_below:
			yield 'FAIL', f'{name}: {test.status.name.lower()}'
	elif test.status == parser.TestStatus.SUCCESS:
		yield 'ok', name
	elif test.status == parser.TestStatus.SKIPPED:
		yield 'skip', f'{name} # SKIP {skip_reason(text, test.name)}'.rstrip()
	else:
		yield 'FAIL', f'{name}: {test.status.name.lower()}'


def root_results(root, text, parser):
	"""Results of every suite, and of the log as a whole."""
	lines = []
	for suite in root.subtests:
		lines += results(suite, [], text, parser)
	if own_errors(root):
		lines.append(('FAIL', f'KTAP: {own_errors(root)} error(s), see the report'))
	if not any(s in ('ok', 'skip') for s, _ in lines):
		lines.append(('FAIL', 'no KUnit result in the guest log'))
	return lines


def main():
	if len(sys.argv) != 4:
		sys.exit(__doc__.split('\n\n')[1])
	kunit_dir, ktap_file, report = sys.argv[1:]
	sys.path.insert(0, kunit_dir)
	import kunit_parser
	import kunit_printer

	with open(ktap_file, errors='replace') as f:
		text = f.read()
	with open(report, 'w') as out:
		kunit_parser.stdout = kunit_printer.Printer(out)
		root = kunit_parser.parse_run_tests(text.splitlines(keepends=True))
	for status, line in root_results(root, text, kunit_parser):
		print(f'{status}\t{line}')


if __name__ == '__main__':
	main()
