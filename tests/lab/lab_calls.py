"""femu-lab called in-process by the lab and Slurm tests, and the CSVs it writes read back."""
import csv

from femu_lab import lab_cli


def lab(capsys, *args):
    """`femu-lab ARGS` in-process: (exit status, stdout lines, stderr lines)."""
    status = lab_cli.main([*map(str, args)])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def sweep(capsys, *args):
    """`femu-lab sweep ARGS` in-process: (exit status, stdout lines, stderr lines)."""
    return lab(capsys, "sweep", *args)


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
