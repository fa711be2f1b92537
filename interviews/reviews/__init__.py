"""The interviewers' side of a loop: services (access, queue, scorecards), forms, views, urls."""
