"""The azureml format."""
