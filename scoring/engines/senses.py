"""Terms defined in a sense they do not have: the subject's words, said with the wrong meaning.

- Term senses: each term ("burn rate", "fragmentation", "shadow mode") has the marks of its common
  wrong definitions and of its right one; a definition with a wrong mark and no right mark is
  wrong ("fragmentation is just another word for a leak").
- Glosses: a term glossed in the candidate's own flagged words ("burn rate, by which I mean ...")
  with no mark of its right sense is wrong, known wrong sense or not.
- Averages: jitter, the tail or a percentile defined as an average ("jitter is the average
  processing time per chunk"); a CUDA graph taken for a chart.

Each finder returns WrongClaim records, the record relations.py's finders return too; the engine
treats a criterion whose evidence sits in such a sentence as contradicted. Plain Python over the
answer's text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from scoring.engines.base import Span


@dataclass(frozen=True)
class WrongClaim:
    span: Span
    sentence: int
    # "role", "percentile", "batch", "definition", "portable", "universal", "relation",
    # "memory", or a kind that takes down one point wherever it is made (relations'
    # _TURNED_FACTS_BY_KIND, read by concepts' _TURNED_BY_LABEL and ONE_POINT_KINDS).
    kind: str


def _claim(start: int, end: int, sentence_of, kind: str) -> WrongClaim:
    """A wrong claim over text[start:end], in the sentence holding its start."""
    return WrongClaim(Span(start, end), sentence_of(start), kind)


# A term of the subject defined wrongly: "burn rate is how fast the GPUs burn through their
# power budget", "fragmentation is just another word for a leak", "shadow mode, where the new
# model serves all the live traffic". Each term has the marks of common wrong definitions and
# the marks of a right one; a definition with a wrong mark and no right mark is a wrong claim.
@dataclass(frozen=True)
class TermSense:
    term: str  # regex for the term
    wrong: str  # regex for what a wrong definition says
    right: str  # regex for what a right definition says (vetoes the wrong mark)
    # More marks of the right sense, heard in a gloss ("jitter, by which I mean the p99 minus
    # the p50"); a gloss with none of `right` or `meaning` is a wrong definition.
    meaning: str = ""


TERM_SENSES: tuple[TermSense, ...] = (
    # "burn rate, which is just the raw error percentage over the last minute": the rate at
    # which the error budget is spent, not the error rate itself.
    TermSense(r"burn[- ]rates?",
              r"power|watts?|energy|electric\w*|dollars?|money|spend\w*|costs?|gpu|compute|"
              r"thermal|heat|raw\s+(?:error|5xx|failure)\w*|"
              # "burn rate alerts are for availability SLOs only, they don't apply to latency".
              r"(?:for\s+)?availability\s+(?:slos?\s+)?only|only\s+(?:for\s+)?availability|"
              r"(?:don't|do not|doesn't|does not) apply to latency",
              r"error[- ]budget|budget of errors|slo|reliability|allow\w*|multiples?|relative|"
              r"expected|sustainable"),
    TermSense(r"error[- ]budgets?",
              r"money|dollars?|\$|spend\w*|costs?|power|gpu hours?|headcount|gpus?|afford\w*",
              r"slo|failures?|errors?|unreliab\w*|allowed to (?:fail|go wrong|break|be down)|"
              r"downtime|bad (?:requests|minutes)"),
    TermSense(r"saturation",
              r"error[- ]rates?|errors?|5xx|crash\w*|how many requests fail",
              r"full|capacity|queue\w*|utili[sz]\w*|headroom|how close|limit|memory|busy|"
              r"resource"),
    TermSense(r"shadow(?:ing|ed)?(?:\s+(?:mode|traffic|deployment|testing|launch))?",
              r"serv\w* (?:all|every|the|real|live|most|some|a|\d+%?)\b[^.;]{0,25}"
              r"(?:traffic|users|requests|customers)|(?:small|tiny) (?:group|set|number|cohort|"
              r"subset) of (?:real |live |actual )?(?:users|customers)|"
              r"(?:small|tiny) (?:share|slice|percentage|fraction)|"
              r"\d+\s?% of (?:(?:real|live|actual)\s+)?(?:users|traffic|requests|customers|"
              r"shoppers|riders)|"
              r"(?:users|they|customers)\s+(?:see|get)\s+(?:its|the\s+new)|"
              r"(?:old|previous|current) (?:model|version) (?:keeps? running|runs|sits|stays)"
              r"[^.;]{0,20}(?:background|standby|reserve)",
              r"cop(?:y|ies|ied)|mirror\w*|duplicat\w*|discard\w*|thrown away|throw\w* away|"
              r"not (?:served|returned|shown)|never (?:served|returned|shown|reach\w*)|"
              r"(?:no|without) (?:user|customer)s? (?:see|seeing|impact)|compare\w*|"
              r"side by side|in parallel|alongside|log\w*|dropped|tee\w*|nobody|no one|"
              r"only the (?:old|current|existing|prod\w*)"),
    TermSense(r"canary(?:\s+(?:release|rollout|deployment|deploy|test|testing))?",
              r"(?:all|100\s?%|the whole|every)\s+(?:of\s+)?(?:the\s+)?(?:traffic|users|"
              r"requests)|cop(?:y|ies) of (?:the )?traffic|mirror\w*|no (?:real )?users|offline|"
              r"staging|test environment|synthetic|full traffic|side by side on (?:full|all)",
              r"small|tiny|few|fraction|subset|slice|percent|\d+\s?%|some (?:of the )?(?:users|"
              r"traffic|requests)|portion|share"),
    TermSense(r"(?:memory\s+)?fragmentation",
              r"leak\w*|runs? out of memory because|garbage|bug in (?:the )?model|nvlink|"
              r"corrupt\w*|on disk|cpu heap|host memory|"
              r"(?:doesn't|does not|don't|do not|can't) (?:apply|happen) (?:to|on) (?:the )?gpu|"
              r"(?:split|sharded|spread)(?: in(?:to)? (?:fragments|pieces|parts|chunks))? "
              r"(?:across|over|onto|between) (?:several |multiple |many |two |three |four |\d+ )?"
              r"(?:gpus|cards|devices)|tensor parallel\w*",
              r"contiguous|split(?!(?: in(?:to)? (?:fragments|pieces|parts|chunks))? "
              r"(?:across|over|onto|between) (?:several |multiple |many |two |three |four |\d+ )?"
              r"(?:gpus|cards|devices))|"
              r"scatter\w*|gaps?|holes?|pieces|chunks|free (?:memory|space)|"
              r"allocat\w*|unusable|broken up|small blocks"),
    TermSense(r"(?:kernel\s+)?launch\s+overhead",
              r"grows? with (?:the )?batch|scales? with (?:the )?batch|(?:each|every) "
              r"(?:extra|additional) item|its own kernels?|proportional to (?:the )?batch|"
              r"start-?up|once\b|cop(?:y|ying|ies) (?:the )?(?:model )?weights|load(?:ing)? "
              r"(?:the )?(?:model|weights|kernels)|cold[- ]start|warm-?up|then it'?s gone|boot|"
              r"when (?:a|the) (?:pod|replica|container|server) starts|"
              # "about 2ms per sample in the batch, so bigger batch cost more launch time".
              r"\d\s?ms per (?:sample|item|example|row)|(?:per|each|every) (?:sample|item|example|"
              r"row) in the batch|bigger batch\w* costs? more",
              r"per (?:call|batch|request|inference|kernel|launch|step)|every (?:call|batch|"
              r"request|inference|kernel|launch|time)|each (?:call|batch|request|inference|"
              r"kernel|launch)|fixed|regardless|no matter|cpu|same (?:for|across) (?:the )?"
              r"(?:whole |entire )?batch|shar\w*|constant|whatever the batch|amorti[sz]\w*|"
              r"spread\w*"),
    # "CUDA graphs let you put two model replicas on the same GPU": a graph records a run of
    # kernel launches once and replays it, cutting the CPU's per-launch cost; it does not
    # share a card between models.
    TermSense(r"cuda\s+graphs?",
              r"replicas?|(?:two|multiple|several|more)\s+(?:model\s+)?(?:copies|models|instances)|"
              r"shar\w*\s+(?:the\s+|a\s+|one\s+)?(?:gpu|card)|same\s+(?:gpu|card)|partition\w*|"
              r"cach\w*\s+(?:the\s+)?(?:results?|predictions?|responses?|outputs?)",
              r"launch\w*|captur\w*|replay\w*|record\w*|kernels?|cpu|overhead|dispatch\w*"),
    TermSense(r"intra[- ]?op(?:\s+(?:parallelism|threads?))?",
              r"(?:many|multiple|several|concurrent|parallel|different|more)\s+(?:incoming\s+)?"
              r"requests|across (?:the )?(?:worker|process|replica|instance)\w*|adding workers|"
              r"more workers|number of workers|worker processes",
              r"inside|within|single (?:op|operator|request|matrix)|one (?:op|operator|request|"
              r"matrix)|each (?:op|operator)|(?:an|one|a single) (?:op|operator)|matmul|"
              r"matrix|kernel|threads?|cores? per request"),
    TermSense(r"bake(?:\s+(?:window|period|time))?|soak(?:\s+(?:window|period|time))?|"
              r"stabili[sz]ation\s+(?:window|period|time)",
              r"before (?:the |any |we |you )?(?:traffic|shift\w*|send\w*|rout\w*|mov\w*)|"
              r"staging|"
              r"no (?:users|traffic) on it|without (?:any )?(?:users|traffic)|warm[- ]?up|"
              r"train\w*|fine-?tun\w*|propagat\w*|push\w* (?:the )?(?:new )?(?:config|weights)|"
              r"sidecars?|(?:istio|the mesh|kubernetes|k8s|argo) (?:needs|takes)|warm(?:s|ing)|"
              r"pre-?compil\w*|before it (?:gets|sees|takes|serves) any|"
              # "the build stage where CI bakes the weights into the image"; "the soak after
              # promotion, once the model is at 100%".
              r"build (?:stage|step)|ci (?:bakes|builds)|into the (?:container |docker )?image|"
              # "the time it takes CI to build and push the image".
              r"(?:ci|the pipeline) (?:to |takes to )?build|build and push|push the image|"
              r"after (?:the )?(?:final |full )?promot\w*",
              r"after(?!\s+(?:the\s+)?(?:final\s+|full\s+)?promot)|each step|every step|at each|"
              r"per step|observ\w*|watch\w*|hold\w*"),
    # "the cache hit rate, meaning how many queries per second hit the JIT compiler": a rate
    # of traffic, not the share of lookups the cache answers.
    TermSense(r"(?:cache\s+)?hit\s+(?:rate|ratio)",
              r"per second|qps|rps|throughput|load|volume|hit the (?:\w+ )?compiler|"
              # "the fraction of requests that hit the 80ms threshold": a share of slow calls.
              r"(?:hit|cross|exceed|breach)\w* (?:the |our |an? )?(?:\d+\s?ms )?(?:threshold|"
              r"limit|slo|deadline)|slow (?:requests|calls|queries)|(?:over|above) \d+\s?ms",
              # (Not a share of the calls that cross a latency threshold.)
              r"(?:fraction|share|percent\w*|ratio|proportion|%|out of)(?![^.;]{0,30}?\b(?:hit|"
              r"cross|exceed|breach)\w* (?:the |our |an? )?(?:\d+\s?ms )?(?:threshold|limit|slo|"
              r"deadline))|from (?:the )?cache|"
              r"in (?:the )?cache|cached|reus\w*|already compiled|skip\w*|"
              r"(?:without|no|not) (?:a )?(?:re-?)?compil\w*|found|served from|warm",
              meaning=r"how often|already|hit\w* (?:the )?cache"),
    # "78% memory utilization means the cards are computing 78% of the time": that is compute
    # utilization; memory utilization is how much of the card's memory is in use.
    TermSense(r"(?:gpu\s+)?memory\s+utili[sz]ation|memory\s+util",
              r"comput\w*|busy|of the time|(?:sm|cores?|kernels?) (?:running|active)|idle",
              # Not "compute headroom": that is the busy-time reading again.
              r"gb|gib|allocat\w*|occupied|used|in use|holds?|fill\w*|capacity|"
              r"(?<!compute\s)headroom|(?<!compute\s)room|"
              r"free|weights|kv[- ]?cache|fits?|leak\w*"),
    TermSense(r"p50|median",
              r"(?:the\s+)?(?:slow(?:est)?\s+(?:half|tail|requests)|tail|stricter|worst|"
              r"catch\w*\s+the\s+slow)",
              r"typical|middle|half of (?:the )?requests (?:are|finish|come)|midpoint"),
    # "p99, by which I mean the typical request": a tail percentile defined as the middle.
    TermSense(r"p9[59]|9[59]th\s+percentile",
              r"typical|middle|median|average|mean|most\s+requests|the\s+usual",
              r"tail|slow\w*|worst|\d\s?%|one\s+(?:in|out\s+of)|outliers?|highest|longest|"
              r"all\s+but|\d+\s+(?:in|out\s+of)\s+(?:\d+|a\s+hundred)|exceed\w*"),
    # "cold-start latency, which I'd define as the time the autoscaler takes to decide".
    TermSense(r"cold[- ]?start\s+(?:latency|time|duration)",
              r"autoscal\w*[^.;]{0,30}(?:decid\w*|decision|notic\w*)|decid\w*\s+to\s+(?:add|scale)|"
              r"how\s+often|frequency",
              r"(?:first|initial)\s+request|load\w*|pull\w*|start\w*\s+up|boot\w*|warm\w*|"
              r"ready|time\s+to\s+first|until\s+(?:it|the\s+(?:new\s+)?replica)\s+(?:serves|can)",
              meaning=r"spun\s+up|spin\w*\s+up|from\s+zero|first\s+byte|extra\s+time|wait\w*|"
                      r"new(?:ly)?\s+(?:started|created)"),
    # "the cold start rate, meaning how many replicas we spin up per hour", "the cold-start rate
    # is the same thing measured per hour": replicas started or the latency again, not the share
    # of requests that land on a cold replica.
    TermSense(r"cold[- ]?start\s+(?:rate|ratio|frequency)",
              r"replicas?\s+(?:we\s+|get\s+)?(?:spin\w*|start\w*|launch\w*|creat\w*)|"
              r"(?:spin[- ]?ups?|scale[- ]?ups?|scaling\s+events|new\s+replicas)\s+"
              r"(?:per|an?|each)\s+(?:hour|minute|day)|same\s+thing|the\s+latency|how\s+long|duration|"
              # "the cold-start rate, meaning how many milliseconds a new replica needs".
              r"how\s+many\s+(?:milli)?seconds|milliseconds|time\s+(?:a|the|it)\s+(?:\w+\s+){0,3}?"
              r"(?:takes|needs)|"
              # "Cold-start rate I'd define as the p95 of that cold-start latency over the hour".
              r"\bp\d{2,3}\b|percentile|smoothed|average|\bmean\b",
              r"requests?|calls?|share|fraction|percent\w*|%|proportion|out\s+of|traffic|users?"),
    # "the KV cache is where the 6GB of FP16 weights live, so it's fixed": the cache of attention
    # keys and values per token in flight, which grows with batch and context, not the weights.
    TermSense(r"kv[- ]?cache",
              r"where (?:the |those |our )?(?:\d+\s?gb (?:of )?)?(?:fp16 |int8 |model )?weights|"
              r"(?:stores?|holds?|keeps?|is) (?:just )?(?:the |those )?(?:model(?:'s)? )?weights|"
              r"weights? (?:storage|memory|live|are kept|are stored|sit)|"
              r"(?:is )?fixed|(?:doesn't|does not|don't|won't) (?:grow|change|depend|scale)",
              r"tokens?|context|sequences?|attention|keys?|values?|grows?|per (?:request|"
              r"sequence|token|user)|prompt|in flight|generat\w*"),
    # "a 429 means the model server crashed and returned an error": too many requests, the
    # server turning work away (throttled, over quota), not a crash.
    TermSense(r"\b429s?\b",
              r"crash\w*|server\s+error|internal\s+error|\bbug\b|exception|\boom\b|died|fell\s+over",
              r"rate[- ]?limit\w*|throttl\w*|too\s+many|quota|overload\w*|back-?pressure|"
              r"shed\w*|reject\w*|capacity|turn\w*\s+away"),
    # "provisioned concurrency, which just means capping how many requests a replica accepts":
    # replicas kept initialised and warm ahead of traffic, not a concurrency limit.
    TermSense(r"provisioned\s+concurrency",
              r"cap\w*|limit\w*|max(?:imum)? (?:number of )?(?:requests|concurrent)|throttl\w*|"
              r"how many requests (?:a|each|one|the) (?:replica|instance|container)|"
              # "which means giving each container more vCPUs so it boots faster".
              r"more\s+(?:v?cpus?|cores|memory|ram)\b|bigger\s+(?:containers?|instances?|machines?)",
              r"warm\w*|pre-?(?:warm\w*|initiali[sz]\w*|provision\w*)|kept (?:running|alive|ready|"
              r"warm)|always[- ]on|ready|initiali[sz]ed|in advance|ahead of|minimum (?:number "
              r"of )?(?:replicas|instances)|cold"),
    TermSense(r"real[- ]time factor|rtf",
              r"(?:above|over|greater than|more than|at least|exceed\w*)\s+(?:1|one)\b(?![.,]\d)",
              r"(?:below|under|less than)\s+(?:1|one)\b|<\s*1\b|alert|page|falling behind|"
              r"bad|problem|behind",
              meaning=r"process\w*|comput\w*|divided|ratio|relative|over the|audio (?:length|"
                      r"duration|seconds?)|per second of audio|/"),
    TermSense(r"jitter",
              r"(?:total|overall|end-to-end|average|mean|typical)\s+(?:[\w-]+\s+){0,2}?"
              r"(?:time|latency|delay)|throughput|packet loss",
              r"variation|variance|varies|vary\w*|spread|fluctuat\w*|inconsisten\w*|"
              r"differen\w*|swing|unpredictab\w*|std|deviation|irregular",
              meaning=r"swing\w*|minus|gap|range|jump\w*|wobbl\w*|steady|consisten\w*|smooth\w*"),
    TermSense(r"dynamic\s+batch(?:ing|er)?",
              # "a TensorRT feature where it flips precision between FP16 and INT8 per request".
              r"precision|fp16|int8|quantiz\w*|"
              r"re-?trac\w*|graph|re-?compil\w*|compil\w*|reshap\w*|(?:fit|match)\w* the shape|"
              r"resiz\w* the model|model to fit|"
              r"one request at a time|autoscal\w*|(?:adds?|more) (?:workers|replicas|gpus|pods)|"
              r"(?:model\s+)?cop(?:y|ies)|(?:different|other|another)\s+(?:model\s+)?versions?|"
              r"between (?:the |two |model )*versions|"
              # "the batch size adapts to the GPU memory that's free", "is picked automatically
              # by the GPU driver": batches form from requests that arrive within a wait.
              r"(?:gpu\s+)?memory (?:that's |that is |which is )?(?:free|available|left)|"
              r"free (?:gpu )?memory|(?:gpu|cuda|nvidia) driver|"
              # "meaning the server swaps to a smaller model variant when load spikes".
              r"smaller (?:model|variant)|model variant|swaps? (?:to|in) (?:a |the )?(?:smaller|"
              r"lighter|cheaper)|"
              # "grows the batch size on its own when the GPU has free cycles, so there's no
              # timeout": batches form within a wait, not from spare GPU capacity.
              r"(?:free|spare|idle) (?:gpu )?cycles|no (?:timeout|max(?:imum)? (?:wait|delay))",
              r"group\w*|combin\w*|collect\w*|merg\w*|together|queue\w*|wait\w*|window|"
              r"(?:several|multiple|many|concurrent) requests|accumulat\w*|max_?batch\w*|"
              r"batch size (?:(?:is |gets )?(?:capped|grows|varies|depends on (?:the )?(?:traffic|"
              r"load|queue|arrivals))|up to)|max (?:batch )?delay",
              meaning=r"hold\w*|form\w* (?:a )?batch|batch(?:es)? up|up to|\d+\s?ms|stack\w*|"
                      r"concurrent|arriv\w*|forward pass|one (?:pass|call)|capped|at once"),
    # "a Triton ensemble, which means running several copies of the engine across GPUs": an
    # ensemble chains models and steps (tokenizer, engine) in one server, one request.
    TermSense(r"(?:triton\s+)?ensembles?",
              r"cop(?:y|ies)|replicas?|redundan\w*|failover|(?:several|multiple) (?:instances|"
              r"gpus)",
              r"pipeline|chain\w*|steps?|stages?|dag|pre-?process\w*|tokeni[sz]\w*|sequence|"
              r"in (?:one|the same|a single) (?:server|process|request|call)|co-?locat\w*|"
              r"feeds?|output of|combin\w*|together"),
    # "queue depth tells you about the model's accuracy": it is how many requests wait.
    TermSense(r"queue\s+(?:depth|length|size)",
              r"accura\w*|quality|correct\w*|drift|how good|precision|recall",
              r"wait\w*|backlog|pending|queued|load|saturat\w*|capacity|behind|pil\w+ up|"
              r"latency|in line|requests|busy|overload\w*"),
    TermSense(r"immutab\w*(?:\s+(?:image\s+)?tags?)?",
              r"push\w* (?:a |an )?(?:\w+ )?(?:build|image|version|fix)? ?over|overwrit\w*|"
              r"re-?push\w*|re-?tag\w*|reus\w* (?:the )?(?:same )?tags?|same tag|move the tag|"
              r"re-?point\w*|point (?:it|the tag) (?:at|to)|per environment|"
              r"mutable|latest|(?:one|a single) tag (?:per|for (?:each|every|the))|"
              r"(?:ci|we|pipeline) (?:just |simply )?(?:moves?|updates?|bumps?) it|stable\b",

              r"never (?:chang\w*|mov\w*|re-?point\w*|re-?us\w*|overwrit\w*|mutat\w*|"
              r"modif\w*|updat\w*|touch\w*)|never point\w*|once pushed|pinned|unique|"
              r"fixed forever|forever|permanent\w*|(?:new|own|fresh) tag|(?:every|each) build|"
              r"sha|build (?:id|number)|never\W{1,2}latest"),
    TermSense(r"data[- ]plane(?:\s+(?:rollbacks?|roll\s*backs?|reverts?|switch(?:back)?))?",
              r"restor\w*|snapshot\w*|backups?|databases?|re-?deploy\w*|git(?:\s+repo\w*)?|"
              r"commits?|controllers?|"
              r"revert\w* (?:the )?(?:commit|pr|manifest|merge)|rebuild\w*|retrain\w*",
              r"traffic|rout\w*|weights?|flags?|mesh|istio|envoy|load balancer|switch\w*|"
              r"shift\w*|bypass\w*|instant\w*|seconds"),
    TermSense(r"optimi[sz]ation\s+profiles?",
              r"config\.properties|config(?:uration)? files?|workers?|ports?|threads?|replicas?|"
              r"autoscal\w*|logging",
              r"shapes?|min\w*|max\w*|opt\b|dimensions?|sequence lengths?|batch sizes?|"
              r"ranges?|lengths?"),
    TermSense(r"quanti[sz](?:ation|ing|e)",
              r"prun\w*|remov\w* (?:some )?(?:layers|weights|neurons|heads)|distill\w*|"
              r"fewer layers|cach\w*|batch\w*|spread\w*|(?:more|across|over)\s+(?:\w+\s+)?"
              r"(?:cores|threads)",
              r"precision|bits?|int8|int4|fp16|fp8|bf16|8-bit|4-bit|float\w*|integers?|"
              r"round\w*|lower-precision"),
    TermSense(r"sticky(?:\s+(?:bucket\w*|assignments?|sessions?|routing))?",
              r"same (?:set of )?(?:hosts|machines|servers|pods|nodes)|"
              # "meaning the old canary pods stick around after promotion".
              r"pods? (?:\w+ )?stick|stick around|old (?:canary )?(?:pods|replicas)|"
              r"(?:random\w*|re-?roll\w*|fresh\w*|re-?assign\w*) (?:\w+ )?(?:per|on|for|each|"
              r"every) (?:\w+ )?(?:request|call)|cach\w* (?:the )?(?:responses?|predictions?|"
              r"results?)",
              r"same (?:user|customer|account|person|rider|bucket)|per (?:user|customer|account)|"
              r"hash\w*|consistent\w*|user[- ]?ids?|always (?:gets?|sees?) the same"),
    TermSense(r"slis?|service level indicators?",
              r"targets?|objectives?|goals?|promises?|contracts?|agreements?|thresholds?",
              r"measur\w*|metrics?|indicators?|ratios?|shares?|proportions?|percentages?|"
              r"fraction|what (?:we|you) (?:measure|track|observe)|signals?"),
    TermSense(r"slos?|service level objectives?",
              r"penalt\w*|refunds?|credits?|legal\w*|lawyers?|the metric (?:we|you) (?:measure|"
              r"track|collect)|raw (?:metric|measurement)",
              r"targets?|objectives?|goals?|internal\w*|stricter|threshold\w*",
              meaning=r"p\d{2}|under|below|within|over\s+\d+\s+days|\d+(?:\.\d+)?\s?%|ms\b"),
    TermSense(r"(?:layer|kernel|operator|op)\s+fusion|fus(?:es|ing)\s+(?:the\s+)?layers",
              r"(?:merg|combin|fus)\w* (?:the |several |multiple )?(?:models|gpus|servers|"
              r"requests|batches|replicas)|multiple gpus|ensembl\w*",
              r"kernels?|layers?|operations?|ops|memory (?:traffic|round[- ]?trips?|reads?)|"
              r"launch\w*"),
    TermSense(r"continuous\s+batching",
              r"retrain\w*|continuous(?:ly)? (?:deploy|train|integrat|deliver)\w*|ci\b|"
              r"pipelines?|re-?deploy\w*|cach\w* (?:the )?(?:answers?|responses?|results?|"
              r"outputs?)|memoi[sz]\w*|repeated (?:prompts|queries)|dedup\w*",
              r"tokens?|iterations?|steps?|join\w*|slots?|in-?flight|finish\w*|complet\w*|"
              r"leav\w*|sequences?"),
    # "a warm pool, meaning we keep the GPU nodes physically warm with a dummy load": warm
    # means loaded and ready to serve, not the hardware's temperature.
    TermSense(r"warm[- ]?pools?",
              r"cach\w* (?:the )?(?:responses?|predictions?|results?|answers?)|cdn|physical\w*|"
              r"temperature|thermal|heat\w*|(?:hardware|chips?|cards?) (?:isn't|is not|aren't|"
              r"stays?|gets?) (?:cold|warm)",
              r"replicas?|instances?|pods?|loaded|ready|idle|standby|containers?|scale to zero|"
              r"min(?:imum)?[- ]?replicas?|already (?:running|up|loaded|have|has|hold\w*|on)|"
              r"in memory|resident|pre-?loaded|initiali[sz]ed|hbm|serving-capable|workers?|"
              r"weights (?:already )?(?:on|in)"),
    # "Rollback means retraining the previous model from the last checkpoint": a rollback
    # repoints to a version already built and stored.
    TermSense(r"roll\s*-?backs?",
              r"re-?train\w*|from (?:the )?(?:last |latest )?checkpoints?|restor\w* (?:the )?"
              r"(?:\w+ )?(?:database|db|snapshot)|"
              r"rebuild\w* (?:the )?model",
              r"previous (?:version|build|image|tag|model version)|last (?:good|known)|"
              r"known[- ]good|registry|pointer|repoint\w*|switch\w*|traffic|weights?|pinned|tag|"
              r"stored|"
              r"already (?:built|stored)",
              meaning=r"back to|previous|last|old(?:er)?|prior|v\d+|earlier|revert\w*|undo\w*|"
                      r"restor\w*"),
    # "prediction drift, which I'd define as the p99 latency drifting upward": drift is a change
    # in what the model sees or says, not in how fast it runs.
    TermSense(r"(?:prediction|model|data|feature|concept)\s+drift",
              r"latency|p9\d|throughput|memory|slower|speed|response time",
              r"distribution\w*|inputs?|features?|outputs?|scores?|labels?|accuracy|quality|"
              r"population|shift\w*|histogram|psi|kl|statistic\w*"),
    # "OpenVINO, which is NVIDIA's GPU compiler": it is Intel's runtime for CPUs.
    TermSense(r"openvino",
              r"nvidia\w*|gpus?|cuda|tensor\s+cores?|memoi[sz]\w*|cach\w*|previous\s+predictions",
              r"intel|cpus?|x86|xeon|avx\w*"),
    # "WER, the words-per-second rate the model emits": a speed, not the share of words wrong.
    TermSense(r"wer|word[- ]error[- ]rates?",
              r"words?[- ]per[- ]second|speed|throughput|how fast|keeping pace|latency|"
              r"emit\w*|per second|(?:when|while) (?:you|we) train|during training|"
              r"at training time|not in production|"
              # "WER is set when the model is trained; it can't change in production".
              r"(?:set|fixed|decided|determined|frozen|locked(?: in)?)\s+(?:when|once|at|during|"
              r"after)\b|(?:can't|cannot|won't|doesn't|does not|will not|never)\s+change",
              r"errors?|wrong|mistakes?|substitut\w*|insert\w*|delet\w*|accura\w*|"
              r"reference|labell?ed|transcri\w*|misheard|share|fraction|percent\w*"),
    # Written ahead of any answer that needed them: the subject's terms as candidates misuse
    # them, each with the marks of a right definition that veto the wrong ones.
    # "statistically significant, which to me means making the gate stricter": significance is
    # about telling a real difference from noise, not about how tight the threshold is.
    TermSense(r"statistical(?:ly)?\s+significan\w*|significance",
              r"strict\w*|tight\w*|smaller (?:threshold|gate|margin)|lower (?:threshold|gate)|"
              r"(?:big|large|huge)\w* (?:difference|gap|regression|jump)|obvious|visible on",
              r"chance|noise|noisy|random\w*|confiden\w*|p[- ]?values?|samples?|variance|real\b|"
              r"luck\w*|enough (?:data|traffic|requests|samples|users)|tests?\b|t-test|"
              r"interval|fluke|not just|error bars?|power"),
    TermSense(r"circuit[- ]breakers?",
              r"retr(?:y|ies|ying)\w*|until (?:it|we) gets?|keeps? trying|wait\w* (?:for|until)|"
              r"batch\w*|group\w* (?:the )?requests|queue\w*|more (?:replicas|gpus|capacity)",
              r"stop\w*|open\w*|trip\w*|fail\w* fast|shed\w*|fallback|default|skip\w*|"
              r"short-?circuit\w*|cut\w* off",
              meaning=r"return\w*|instead|cached|serv\w*|errors?|fail\w*|too many"),
    TermSense(r"fallbacks?(?:\s+(?:scores?|rankings?|path|model))?",
              r"retr(?:y|ies|ying)\w* (?:on )?(?:another|a different|the same) (?:replica|pod|node|"
              r"server)|wait\w* (?:for|until) (?:the|a) (?:real|proper|full) "
              r"(?:score|model|answer)",
              r"default|cached|simpler|popular\w*|rules?|heuristic\w*|previous|static|cheap\w*|"
              r"last known"),
    TermSense(r"headroom",
              r"how busy|(?:capacity|memory|compute) (?:we|you) (?:already )?(?:use|used|consume)|"
              r"(?:the )?utili[sz]ation (?:itself|level)",
              r"spare|left|unused|room|buffer|extra|free|slack|above|margin|before|reserve\w*|"
              r"over-?provision\w*|growth|spikes?",
              meaning=r"gap|capacity|peak|can (?:take|handle|absorb)|unused|limit"),
    TermSense(r"throughput",
              r"how (?:long|fast) (?:a|one|each|a single) (?:request|call|query)|per[- ]request "
              r"(?:time|latency)|latency of (?:a|each|one)",
              r"per (?:second|minute|hour)|qps|rps|how many|volume|rate|tok(?:ens)?/s|capacity|"
              r"a second|an hour|a minute"),
    TermSense(r"kv[- ]?cache",
              r"cach\w* (?:the )?(?:whole )?(?:responses?|answers?|results?|predictions?|outputs?)|"
              r"redis|cdn|on disk|"
              # "a compressed copy of those weights", "sits in host memory".
              r"(?:compressed )?copy of (?:the |those |its )?(?:model(?:'s)? )?weights|"
              r"host (?:memory|ram)|cpu (?:memory|ram)|system (?:memory|ram)",
              r"keys?|values?|attention|tokens?|sequence|context|layers?|prefix"),
    TermSense(r"tensor[- ]parallel\w*",
              r"(?:several|multiple|many|more) (?:requests|replicas|copies)|replicas?|"
              r"data[- ]parallel\w*|copy of the (?:whole )?model",
              r"split\w*|shard\w*|across (?:\w+ )?(?:gpus|cards|devices)|layers?|matri\w*|"
              r"weights?|nvlink|slices?"),
    TermSense(r"mig|multi[- ]instance gpus?",
              r"migrat\w*|across (?:several|multiple|many|\d+) (?:gpus|cards)|combin\w* "
              r"(?:several|multiple|many)|pool\w* (?:several|multiple)",
              r"partition\w*|split\w*|slices?|isolat\w*|smaller|one (?:gpu|card)|single "
              r"(?:gpu|card)|fractions?"),
    TermSense(r"kill[- ]?switch(?:es)?",
              r"(?:shut\w*|turn\w*) (?:off|down) (?:the )?(?:whole|entire) (?:service|cluster|"
              r"fleet|platform)|retrain\w*|rebuild\w*|delet\w* (?:the )?model",
              r"flags?|toggl\w*|fallback|previous|old|rules?|default|instant\w*|seconds|"
              r"without (?:a )?(?:re)?deploy|rout\w*|switch\w* (?:back|traffic)|disabl\w*"),
    TermSense(r"time[- ]to[- ]first[- ]token|ttft",
              r"(?:whole|full|entire|complete|total) (?:response|answer|generation|output|reply)|"
              r"last token|all (?:the )?tokens|model load\w*|load\w* the model|cold start",
              r"first token|prefill|prompt|starts? (?:streaming|appearing|to stream)|until "
              r"(?:the )?(?:first|user sees)|begin\w*"),
    TermSense(r"sync(?:hroni[sz]ation)?[- ]windows?",
              r"(?:the )?(?:bake|observation|canary|judging|evaluation) (?:time|period|window)|"
              # "the sync window is the 5 minutes of the canary where traffic is split".
              r"of the canary|canary (?:phase|step|stage)|traffic (?:is )?split|"
              r"(?:when|hours) (?:we|you)(?:'re| are) allowed to (?:deploy|ship|release)|"
              r"maintenance|freeze",
              r"up to|poll\w*|appl(?:y|ies|ied)|git|lag\w*|delay\w*|reconcil\w*|interval|"
              r"pick\w* up|notice\w*|minutes? (?:before|until|for argo)"),
    # "blast radius is the number of models running at the same time": it is who is hurt when
    # the new model is bad (the users or traffic exposed), not a count of models or machines.
    TermSense(r"blast[- ]radius",
              r"(?:number|count) of (?:models|versions|deploys|releases|gpus|servers|nodes|"
              r"replicas)(?! (?:affected|hit|broken|touched))|how many (?:models|versions|gpus|"
              r"servers|replicas) (?:are |we )?(?:run|running|live|deployed)",
              r"users?|customers?|traffic|requests|share|fraction|percent\w*|%|affect\w*|"
              r"impact\w*|expos\w*|damage|harm\w*|who (?:sees|gets)|accounts?|orders?|trades?",
              meaning=r"spread\w*|how far|touch\w*|reach\w*|break\w*|downstream|services?|"
                      r"everything|hit|hurt\w*"),
    TermSense(r"blue[- /]green(?:\s+(?:deploy\w*|release|rollout|switch))?",
              r"(?:small|tiny)\s+(?:share|slice|percentage|fraction)|\d+\s?% of (?:the )?"
              r"(?:users|traffic|requests)|gradual\w*|step by step|(?:ramp|shift)\w* (?:slowly|"
              r"gradually)",
              r"two (?:full |identical |complete )?(?:environments|fleets|stacks|copies|"
              r"deployments)|switch\w*|flip\w*|all (?:the )?(?:traffic|at once)|cut ?over|idle|"
              r"standby"),
)

# "the error budget, which as I understand it is ...": a hedge said without commas.
_HEDGE_ASIDE = (r"(?:as\s+(?:i|we)\s+(?:understand|see|know|remember)(?:\s+it)?|as\s+far\s+as\s+"
                r"(?:i|we)\s+know|if\s+i\s+recall|i\s+think|i\s+believe|to\s+me|for\s+me)")
_DEFINES = (r"(?:is|are|means?|meaning|refers\s+to|=|basically\s+means|just\s+means|"
            r"[-—(,]?\s*by\s+(?:which|that|this|it)\s+(?:i|we)\s+mean|[-—(,]?\s*(?:i|we)\s+mean|"
            # "WER, the words-per-second rate the model emits": an appositive defines too.
            r",\s+(?=the\s)|"
            r",\s*(?:meaning|i\.e\.)|"
            # "..., in other words ...", "..., aka ...", "I think of the canary as ...".
            r",?\s*(?:in\s+other\s+words|aka|a\.k\.a\.|also\s+known\s+as|otherwise\s+known\s+"
            r"as),?|\s+as\s+|"
            # "burn rate, which I take to mean ...", "which I'd define as ...".
            r",?\s*which\s+(?:i|we)(?:'d|\s+would)?\s+(?:take|read|understand|define|measure|"
            r"track|treat|count|think\s+of|see|describe)\s+"
            r"(?:to\s+mean|as)|"
            # "Jitter I'd define as the average latency": the term said first, then defined.
            r"\s+(?:i|we)(?:'d|\s+would)?\s+(?:define|describe|take|treat|think\s+of)\s+(?:it\s+)?"
            r"(?:to\s+mean|as)|"
            r"stands\s+for|(?:is|are)\s+(?:basically|just|simply|really|essentially)(?:\s+another\s+"
            r"word\s+for|\s+the\s+same\s+as)?|is\s+(?:another\s+word\s+for|the\s+same\s+as)|"
            r",\s*(?:which|that)\s*(?:,[^,.;:!?\n]{1,30},\s*|,?\s*" + _HEDGE_ASIDE + r",?\s+)?"
            r"(?:just\s+|basically\s+|simply\s+|really\s+)?(?:is|are|means)|,?\s*where|\(|:|-|—|"
            # "OpenVINO, which as I understand it memoizes previous predictions", "the circuit
            # breaker retries it on another replica": what the term does, said with its verb.
            r",\s*which\s+(?:" + _HEDGE_ASIDE + r",?\s+)?(?=[a-z]+s\b)|"
            r"\s+(?:just\s+|basically\s+|only\s+|simply\s+)?(?=[a-z]{3,}(?:ies|es|s)\b)|"
            # "CUDA graphs let you put two replicas on one GPU": what a plural term does.
            r"\s+(?=let\s+(?:you|us|me)\b))")
_DEFINITION_RES = tuple(
    (sense, re.compile(rf"\b(?P<term>{sense.term})\b['’\"”]?"
                       # "Memory fragmentation on TorchServe is when ...".
                       rf"(?:\s+(?:on|in|with|under)\s+(?:tensorrt|torchserve|triton|gpus?|"
                       rf"argo(?:\s+cd)?|istio|kubernetes|k8s|prometheus))?"
                       rf"(?:\s+(?:issues?|problems?|concerns?|too|also|as\s+well|alerts?|alerting|"
                       # Not across a line break: "queue depth\n- WER drift" is a list.
                       rf"metrics?|panels?|dashboards?|numbers?|signals?))?[ \t]*"
                       # "Jitter is also important - by that I mean ...".
                       rf"(?:(?:is|are)\s+(?:also\s+|really\s+)?(?:important|key|critical|"
                       rf"crucial)\s*(?=[-—,(]))?"
                       rf"(?:for\s+me\s+|here\s+|to\s+me\s+)?"
                       # "The 2ms kernel launch overhead they mentioned is really ...".
                       rf"(?:(?:they|you|we|people|the\s+\w+)\s+(?:mentioned|quoted|cited|"
                       rf"described|flagged|measured)\s+)?"
                       rf"(?:,[^,.;:!?\n]{{1,30}},\s*)?"  # "the window, as I understand it, is"
                       rf"{_DEFINES}(?P<body>(?:[^.;!?\n()—]|\.(?=\w)){{0,140}})", re.IGNORECASE))
    for sense in TERM_SENSES)
# Where a definition's body ends: a spaced dash closing an aside, a consequence (", so ..."),
# or another percentile's clause ("p50 is the lower number and p99 the higher, since the tail
# is slower" says nothing wrong of p50).
# "Launch overhead is about 2ms whatever the batch, while compute scales with it": a contrast
# opens another clause too.
_BODY_END = re.compile(r"\s[-–]\s|,\s*so\b|\band\s+(?:the\s+)?p\d{2}\b|,?\s*\b(?:while|whereas)\b",
                       re.IGNORECASE)
_DEFINITION_DENIAL_RE = re.compile(r"\b(?:not|isn't|aren't|never|no|n't|rather than|instead of)"
                                   r"\s+(?:\w+\s+){0,2}$", re.IGNORECASE)


# The candidate's own gloss, flagged as such: "burn rate, by which I mean ...", "a bake, as I
# understand it, is ...", "immutable tags. To me that means ...". A gloss that says none of
# what the term means (no right mark) is a wrong definition even without a known wrong sense:
# the candidate has said what they take the word to mean, and it is not that.
_GLOSS = (r"(?:\s*[-—(,]\s*|\s+)(?:and\s+)?by\s+(?:which|that|this|it)\s+(?:i|we)\s+mean|"
          r",?\s*which\s+(?:i|we)(?:'d|\s+would)?\s+(?:think\s+of|take|understand|define|read)"
          r"\s+(?:to\s+mean|as)|"
          r",\s*(?:which,?\s+)?as\s+(?:i|we)\s+(?:understand|think\s+of|see)\s+it"
          r",?\s+(?:is|are|means?)|"
          # Not "X, to me, is ..." nor "... X. To me that means ...": an opinion or a
          # conclusion ("jitter, for me, is the bigger concern"), not a gloss.
          r"['’\"”]?\.\s+(?:by\s+(?:that|this)\s+(?:i|we)\s+mean|"
          r"what\s+(?:i|we)\s+mean\s+(?:by\s+(?:that|this|it)\s+)?is)")
# What a gloss may say of a figure's scope rather than of the term: "15ms at p99, by which I
# mean end-to-end from the client".
_GLOSS_OF_SCOPE_RE = re.compile(r"\s*(?:the\s+)?(?:end[- ]to[- ]end|from\s+the|measured|"
                                r"including|excluding|across|at\s+the|on\s+the|over\s+(?:a|the)|"
                                r"per\s+\w+|for\s+(?:each|every|the|all)|not\s+just|only)\b",
                                re.IGNORECASE)
_GLOSS_RES = tuple(
    (sense, re.compile(rf"\b(?P<term>{sense.term})\b['’\"”]?"
                       # "a circuit breaker on the model - by that I mean ...".
                       rf"(?:\s+(?:on|in|for|around|at)\s+(?:the\s+|each\s+|every\s+)?\w+)?"
                       rf"(?:{_GLOSS}):?"
                       rf"(?P<body>(?:[^.;!?\n()—]|\.(?=\w)){{8,140}})", re.IGNORECASE))
    for sense in TERM_SENSES)


_GLOSS_MARKER_RE = re.compile(_GLOSS, re.IGNORECASE)
GLOSS_TERM_REACH = 80  # characters before a gloss marker where the glossed term may start


def wrong_glosses(text: str, sentence_of: Callable[[int], int]) -> list[WrongClaim]:
    """A term glossed in the candidate's own flagged words with no mark of its right sense."""
    found: list[WrongClaim] = []
    markers = list(_GLOSS_MARKER_RE.finditer(text))
    if not markers:
        return found
    lowered = text.lower()
    senses = [(sense, regex) for sense, regex in _GLOSS_RES if re.search(sense.term, lowered)]
    seen: set[tuple[int, int]] = set()
    for marker in markers:
        # Each sense is tried only around a marker, so the work grows with the glosses said,
        # not with the answer's length times the senses.
        start = max(0, marker.start() - GLOSS_TERM_REACH)
        for number, (sense, regex) in enumerate(senses):
            match = regex.search(text, start, marker.end() + 150)
            if match is None or (number, match.start()) in seen:
                continue
            seen.add((number, match.start()))
            body = re.split(_BODY_END, match.group("body"), maxsplit=1)[0]
            marks = f"{sense.right}|{sense.meaning}" if sense.meaning else sense.right
            if re.search(rf"(?<!\w)(?:{marks})(?!\w)", body, re.IGNORECASE):
                continue
            if _DEFINITION_DENIAL_RE.search(body[:12]) or _GLOSS_OF_SCOPE_RE.match(body):
                continue
            found.append(_claim(match.start(), match.start("body") + len(body), sentence_of,
                                "definition"))
    return found


def wrong_definitions(text: str, sentence_of) -> list[WrongClaim]:
    """A term defined with a wrong sense's mark and none of the right sense's."""
    found: list[WrongClaim] = []
    lowered = text.lower()
    for sense, regex in _DEFINITION_RES:
        if not re.search(sense.term, lowered):
            continue
        for match in regex.finditer(text):
            # The definition ends at a dash that closes an aside ("burn rate - by which I
            # mean ... - with the slow burn paging").
            # It ends too where a consequence starts ("is only paid once when the model is
            # loaded, so after warm-up each call costs just the math").
            body = re.split(_BODY_END, match.group("body"), maxsplit=1)[0]
            wrong = re.search(rf"\b(?:{sense.wrong})\b", body, re.IGNORECASE)
            if wrong is None or re.search(rf"\b(?:{sense.right})\b", body, re.IGNORECASE):
                continue
            if _DEFINITION_DENIAL_RE.search(body[: wrong.start()]):
                continue  # "fragmentation is not a leak"
            end = match.start("body") + wrong.end()
            found.append(_claim(match.start(), end, sentence_of, "definition"))
    found += wrong_glosses(text, sentence_of)
    # One wrong definition read by two senses ("a data-plane rollback means restoring the
    # database" is wrong for both terms) is one claim.
    kept: list[WrongClaim] = []
    for claim in sorted(found, key=lambda c: (c.span.start, -c.span.end)):
        if not kept or claim.span.start >= kept[-1].span.end:
            kept.append(claim)
    return kept


# "jitter is the average processing time per chunk", "p99 means the mean latency": a term of
# spread or of the tail defined as a central value.
_AVERAGE_DEFINITION_RE = re.compile(
    r"\b(?P<term>jitter|tail\s+latency|p9\d(?:\.\d+)?|percentiles?|variance|variation)\b"
    r"[^.;:!?\n]{0,20}?\b(?:is|are|means|mean|refers\s+to|=|being|measures)\b"
    r"\s+(?:just\s+|basically\s+|simply\s+)?(?:the\s+|an?\s+|our\s+)?"
    r"(?:average|mean|typical|median)\b", re.IGNORECASE)


# "CUDA graphs to visualise which kernels are slow": a CUDA graph captures a sequence of kernel
# launches to replay it in one launch; it is not a chart.
_CUDA_GRAPH_CHART_RE = re.compile(
    r"\bcuda\s+graphs?\s+(?:to|for)\s+(?:visuali[sz]\w*|plot\w*|chart\w*|draw\w*|see\s+which|"
    r"show\s+which|spot\s+which|display\w*)", re.IGNORECASE)


def average_definitions(text: str, sentence_of) -> list[WrongClaim]:
    """A measure of spread or of the tail defined as an average; a CUDA graph taken for a
    chart."""
    return [_claim(m.start(), m.end(), sentence_of, "definition")
            for regex in (_AVERAGE_DEFINITION_RE, _CUDA_GRAPH_CHART_RE)
            for m in regex.finditer(text)]
