"""Beyond the anchors: problems by parameter, new misconceptions found in wrong answers, and the
notes instructors name them with."""
