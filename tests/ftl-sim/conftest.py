"""ftl-sim's pytest suites. test_fdp_model.py holds ftl-sim's figures against the analysis
package's model: import that package from this checkout (the venv's editable install may
be another checkout's, e.g. a worktree sharing the main one's venv)."""
import pathlib
import sys

ANALYSIS = pathlib.Path(__file__).resolve().parents[2] / "analysis"
if str(ANALYSIS) not in sys.path:
    sys.path.insert(0, str(ANALYSIS))
