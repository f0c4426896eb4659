# ruff: noqa: E501  (hand-written data tables)
"""The ``research`` set's questions, written by hand with the memories that answer them.

One line per question: ``kind | keys | topic | text``, as in :mod:`.support_questions`.
*keys* are the answering memories' keys (comma-separated); *topic* is blank for the first
key's topic, or names its own (multi-hop questions). A ``current`` question's answer is
the newest of several statements on its topic; a ``past`` one asks for an older statement
on a topic whose update carries no ``supersedes`` link; a ``distractor`` one has another
experiment's or person's statement of the same kind in nearly the same words. They are
typed the way a busy PhD student asks her assistant.
"""

from __future__ import annotations

QUESTIONS = """
current | cs.best.3 | | what's the best WER on CS-ASR
current | cs.cluster.2 | | Where do the CS-ASR jobs go?
current | cs.data.2 | | which PtEn-CS version is CS-ASR on now
current | kd.owner.2 | | who runs distil-pt
current | kd.cluster.2 | | distil-pt partition?
current | kd.best.2 | | Distil-PT best WER so far?
current | kd.status.4 | | where's distil-pt at
current | st.data.3 | | which MakST version does ST-Makhuwa use
current | st.best.3 | | latest best BLEU on ST-Makhuwa?
current | st.cluster.2 | | what partition are the ST-Makhuwa jobs on now
current | sner.best.2 | | spokenNER F1
current | sner.status.2 | | Is SpokenNER-PT still shelved?
current | ssl.model.2 | | How big is the PT-SSL model?
current | ssl.config.2 | | path to the PT-SSL config
current | ger.model.3 | | which LLM does GER-PT finetune
current | ger.best.2 | | how much does GER-PT cut the WER
current | mtg.advisor.3 | | when's my 1:1 with Anneke
current | mtg.coadvisor.2 | | When is the monthly call with Anika?
current | p.coadvisor.2 | | where does Anika Voss work
current | p.labmgr.2 | | who handles travel claims these days
current | p.admin.2 | | who's the kestrel admin now
current | p.committee.2 | | who's on my thesis committee
current | pref.editor.3 | | what editor am I using
current | pref.cite.3 | | Which citation manager am I currently using?
current | pref.writing.2 | | when's my writing block
current | dec.vocab.2 | | CS-ASR tokenizer?
current | dec.neurips.2 | | am I going to NeurIPS
current | dl.proposal.3 | | When is my proposal defense?
current | id.quota.2 | | how much scratch space do I have on kestrel
current | id.hfhome.2 | | where does HF_HOME point on kestrel now
current | id.office.2 | | what's my desk number
current | life.lucasjob.2 | | where does Lucas work
current | life.commute.3 | | what's my commute to campus these days
current | life.flight.2 | | when do I fly to Porto for Christmas
current | life.catfood.2 | | What food is Pimenta on?
current | life.physio.3 | | how often is physio now
current | life.climb.2 | | when's bouldering these days
past | cs.data | | which PtEn-CS version was CS-ASR trained on before Rafael's relabel
past | cs.cluster | | where did CS-ASR jobs run before we got nimbus
past | kd.cluster | | what partition did distil-pt use originally
past | sner.status | | why did we shelve spokenNER over the summer
past | p.admin | | who was the kestrel admin before Priya
past | pref.editor.2 | | what editor was I on before going back to VS Code
past | dec.vocab | | what tokenizer did CS-ASR use at first
past | dl.proposal | | what was the original date for my proposal defense
past | life.lucasjob | | where did Lucas work before Ubisoft
past | life.french | | when was French class last term?
past | p.committee | | who was the third committee member originally
past | life.dentist | | what was the dentist appointment before it moved
past | mtg.coadvisor | | when was the Anika call before her McGill schedule
distractor | did.lr | | What LR is DialectID using?
distractor | st.config | | config path for ST-Makhuwa
distractor | ger.wandb | | W&B project for GER-PT?
distractor | sner.model | | how many params is the SpokenNER model
distractor | sner.cluster | | which partition does SpokenNER-PT run on
distractor | did.owner | | who's in charge of DialectID
distractor | ssl.owner | | who runs the PT-SSL pretraining
distractor | kd.model | | distil-pt student size
distractor | cs.model | | What model is CS-ASR?
distractor | kd.lr | | Distil-PT learning rate and batch size?
distractor | st.lr | | ST-Makhuwa lr
distractor | ger.lr | | GER-PT LoRA learning rate
distractor | cs.owner | | who handles the data side of CS-ASR
distractor | cs.wandb | | which W&B project are the CS-ASR runs in
distractor | did.config | | dialectID config file
distractor | kd.config | | Where's the distil-pt config?
distractor | ssl.wandb | | PT-SSL wandb project
distractor | ger.cluster | | what partition is GER-PT on
distractor | st.model | | what model does ST-Makhuwa finetune
distractor | p.meiling,p.meiling.2 | | what does Mei Ling work on
distractor | p.meilin | | Mei Lin's research topic?
distractor | p.thbergh | | thomas bergh email
distractor | p.tberg.2 | | Tomas Berg's personal email
distractor | p.rafaela | | who is Rafaela Sousa
distractor | p.rafael | | Rafael Souza is at which university?
distractor | sner.data | | SpokenNER dataset?
distractor | ssl.data | | what does PT-SSL pretrain on
paraphrase | life.allergy | | which antibiotic can't I take
paraphrase | life.diet | | do I eat meat?
paraphrase | life.lucasbday | | when should I plan something special for my boyfriend
paraphrase | pref.answer | | what format do I want your replies in
paraphrase | pref.notes | | where do I keep what I write about papers I read
paraphrase | dec.fp | | why aren't the code-switching runs in half precision
paraphrase | dec.lm | | why don't we rescore with a language model in the paper?
paraphrase | dec.seeds | | how many random inits do I average over for a table
paraphrase | life.mother | | when do I usually talk to mom
paraphrase | p.karim | | who do I ask about speaker embedding stuff
paraphrase | p.advisor | | where's my supervisor's office
paraphrase | id.grant | | how much funding did I get toward the Australia conference
paraphrase | life.glasses | | how bad is my eyesight
paraphrase | life.gp | | who's my GP
paraphrase | pref.remind | | should you ping me the night before or on the day
paraphrase | pref.overleaf | | what has to go along with any draft I send Anneke
paraphrase | pref.lang | | which language should you answer me in?
paraphrase | id.hotel | | where did I sleep in Australia
paraphrase | ssl.model.2 | | why did the self-supervised model get smaller
paraphrase | kd.data.2 | | why can't I compare the old whisper distillation numbers
paraphrase | pref.plot.2 | | how should my figures look
paraphrase | pref.tables | | how do I want results tables styled?
paraphrase | life.apt.2 | | what's my home address
paraphrase | life.cat | | what kind of pet do I have
paraphrase | pref.shell | | which shell on my laptop
paraphrase | did.data.2 | | what was wrong with the old dialect labels
paraphrase | dec.icassp.2 | | why didn't the whisper student paper go to ICASSP
paraphrase | dec.ger.2 | | why are we sitting on the LLM correction paper
keyword | id.interspeech,id.interspeech.2 | | what's paper 1893
keyword | cs.lr.2 | | r-0412
keyword | id.ticket,id.ticket.2 | | HELP-2291 what was that
keyword | id.quota.2 | | HELP-2430?
keyword | id.claim | | TC-88412
keyword | id.job | | what's job 4481207
keyword | id.arxiv | | 2606.04417
keyword | id.icassp | | ICASSP submission 4127
keyword | kd.status.4 | | ARR paper 2871
keyword | id.flight | | AC33 flight details
keyword | ger.config | | configs/ger/lora_llama8b.yaml is for what
keyword | id.account | | rrg-avos-ab
keyword | did.best.2 | | r-0451 result?
keyword | st.best.3 | | what did r-0544 get
keyword | id.wandbdir | | WANDB_DIR on kestrel
keyword | life.flight.2,life.flight | | TP258
multi-hop | st.config,st.owner | mh.seamless-config-data-owner | who's in charge of the data for the project with configs/st/seamless_med.yaml
multi-hop | kd.owner.2,kd.cluster.2 | mh.meilin-takeover-partition | what partition does the project Mei Lin took over from Tomas run on
multi-hop | cs.lr.2,cs.wandb | mh.diverged-run-wandb | which W&B project has the run that diverged at 18k steps
multi-hop | ssl.owner,p.thbergh | mh.ssl-infra-email | email of whoever runs the PT-SSL infra
multi-hop | ger.data.2,cs.best.3 | mh.nbest-ptencs-version | which PtEn-CS version are the GER-PT n-best lists built from
multi-hop | did.owner,did.data.2 | mh.karim-dataset-version | dataset version for Karim's project
multi-hop | sner.owner,sner.best.2 | mh.rafaela-project-f1 | best F1 on the project Rafaela runs?
multi-hop | id.icassp,dl.icassp.2 | mh.icassp-id-deadline | ICASSP submission id and the deadline it went in under
multi-hop | p.committee.2,dl.proposal.3 | mh.committee-replacement-defense | who replaced Julien on my committee and when do I defend
multi-hop | p.meiling.2,st.data.3 | mh.lecturer-makst-version | which MakST version is the new Edinburgh lecturer's corpus at
multi-hop | ger.wandb,ger.model.3 | mh.ger-wandb-base-model | base model for the project logging to ines-c/ger-pt?
multi-hop | p.coadvisor.2,mtg.coadvisor.2 | mh.coadvisor-place-call | where's my co-advisor based and when do we meet
"""
