# description: the labs' sysbench fileio rndrw, 32 threads, 2304 MiB, fsync all (lab-4g)
# runtime: 300
# needs-mib: 2400
# include: lib/sysbench.sh
lab_sysbench 32
