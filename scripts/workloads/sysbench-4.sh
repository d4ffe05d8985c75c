# description: the labs' sysbench fileio rndrw with 4 threads, 2304 MiB on ext4, fsync on every write (needs conf/lab-4g.conf)
# runtime: 300
# needs-mib: 2400
# include: lib/sysbench.sh
lab_sysbench 4
