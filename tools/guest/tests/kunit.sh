# The KUnit suites ran at boot: print the kernel log for the host, which
# parses its KTAP with the base tree's kunit.py parser, plans included.
dmesg
# The host requires TAINT_TEST alone: any other flag (a WARN in a test,
# say) fails the scenario.
echo "TAINTED $(cat /proc/sys/kernel/tainted)"
