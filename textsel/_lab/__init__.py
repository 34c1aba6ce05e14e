"""What textsel's applications (the command line, the study, the reproductions) share and the
library does not: writing a run's results into the user's files (:mod:`.output`).  Nothing in
the library imports it."""
