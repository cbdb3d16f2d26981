# The KUnit suites ran at boot; print their KTAP results for the host.
for f in /sys/kernel/debug/kunit/*/results; do
	cat "$f"
done
