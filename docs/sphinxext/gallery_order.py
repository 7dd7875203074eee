"""The order of the gallery: the paper's figures first, then worked audits."""

ORDER = (
    "plot_figure1_toy.py",
    "plot_compas_figure3.py",
    "plot_compas_groups.py",
    "plot_german_credit.py",
    "plot_breast_cancer_pipeline.py",
    "plot_k_labels.py",
    "plot_viable_prediction_ranges.py",
    "plot_abstention.py",
    "plot_per_label_tolerances.py",
    "plot_dask_scaling.py",
)


class ExampleOrder:
    """Sort key of sphinx-gallery: the examples in ``ORDER``, then the rest."""

    def __init__(self, src_dir):
        self.src_dir = src_dir

    def __call__(self, filename):
        if filename in ORDER:
            return (0, ORDER.index(filename), filename)
        return (1, 0, filename)

    def __repr__(self):
        return "ExampleOrder"
