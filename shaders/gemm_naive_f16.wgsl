// placeholder, replaced by the gpu branch
