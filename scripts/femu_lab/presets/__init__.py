"""Real-drive presets (conf/samsung-980pro.conf, conf/samsung-pm9a3.conf, conf/wd-zn540.conf):
the figure lines their files state (spec), each measured in ftl-sim (measure), and the
`femu-lab presets` command that tabulates target, femu and error (command)."""
