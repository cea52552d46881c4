"""Training the learning bots: evolution of the neuro network, locally or on a Dask cluster."""
