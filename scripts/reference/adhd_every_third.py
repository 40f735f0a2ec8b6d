"""The ADHD-200 subset the cohort references share: every third subject of the development cohort (194 of 582,
sorted file names; the unpacked archive, never copied into the repository) with its phenotype table, imported
by `brainlens cohort import` at AAL-90 with nilearn's default estimator."""
import glob
import os
import subprocess


def import_every_third(binary, cohorts, tmp):
    """The cohort file written under `tmp`."""
    src = os.path.join(cohorts, "adhd200_aal")
    folder = os.path.join(tmp, "adhd")
    os.mkdir(folder)
    for f in sorted(glob.glob(os.path.join(src, "*_rois_aal.1D")))[::3]:
        os.symlink(f, os.path.join(folder, os.path.basename(f)))
    table = "Phenotypic_V1_0b_preprocessed1.csv"
    os.symlink(os.path.join(src, table), os.path.join(folder, table))
    cohort = os.path.join(tmp, "adhd.npz")
    subprocess.run([binary, "cohort", "import", folder, "--out", cohort], check=True, capture_output=True)
    return cohort
