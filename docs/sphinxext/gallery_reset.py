"""Before each gallery example: scikit-learn style figures that keep their labels."""

import matplotlib


def tight_figures(gallery_conf, fname):
    """Reset matplotlib's settings, then save every figure with a tight box."""
    matplotlib.rcdefaults()
    matplotlib.rcParams["savefig.bbox"] = "tight"
