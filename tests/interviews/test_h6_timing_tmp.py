import time
from django.urls import reverse
from tests.interviews.test_reviews import *  # noqa
from tests.interviews.test_reviews import _bulk_loops

def test_timing(client, world):
    template = LoopQuestion.objects.filter(loop=world["loop"]).first()
    t=time.time(); _bulk_loops(world["bank"], world["candidate_b"], 3000, template); print("bulk", time.time()-t)
    client.force_login(world["interviewer_assigned"]); 
    world["bank"].reviewers.add(world["interviewer_assigned"]); world["bank"].reviewers_see_all_loops=True; world["bank"].save()
    for q in ("?status=all", "?status=to_review", "?status=all&page=100"):
        t=time.time(); r=client.get(reverse("reviews:queue")+q); print(q, r.status_code, time.time()-t)
