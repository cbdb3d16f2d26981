# The KUnit suites ran at boot: print the kernel log for the host, which
# parses its KTAP with the base tree's kunit.py parser, plans included.
dmesg
