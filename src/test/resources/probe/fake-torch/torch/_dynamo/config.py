suppress_errors = False
