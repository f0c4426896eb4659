# ruff: noqa: E501  (hand-written data tables)
"""The ``research`` set's people, the user's preferences, decisions, deadlines and identifiers.

One line per memory: ``key | days_ago | tags | text``, as in :mod:`.research_projects`.
Ines Carvalho's advisors, lab-mates and collaborators have look-alike names (Anneke Vos
and Anika Voss, Tomas Berg and Thomas Bergh, Mei Lin and Mei Ling, Rafael Souza and
Rafaela Sousa); some change roles or leave. Her habits and tools change, deadlines
move, and some decisions are reversed with their reasons. See :mod:`.research`.
"""

from __future__ import annotations

PEOPLE = """
p.advisor | 199.5 | people | Advisor: Prof. Anneke Vos, head of the speech group; office B-4.21.
p.coadvisor | 199.5 | people | Co-advisor: Dr. Anika Voss, research scientist at Lumen Labs in Montreal; on the thesis since year 1.
mtg.advisor | 199 | meetings | Weekly 1:1 with Anneke: Tuesdays 10:00 in her office.
mtg.coadvisor | 199 | | Monthly call with Anika Voss: the month's first Monday, 16:00, Google Meet.
p.tberg | 198 | | Tomas Berg: postdoc in the lab (distillation, efficient ASR), desk next to Ines.
p.thbergh | 197 | | Thomas Bergh: researcher at KTH Stockholm, PT-SSL collaborator; email thomas.bergh@kth.se, 6h ahead.
p.meilin | 197 | | Mei Lin: third-year PhD in the lab, LLMs for ASR error correction; also Ines's climbing buddy.
p.meiling | 196 | | Mei Ling: postdoc at Edinburgh (CSTR), leads the MakST corpus; UK time.
p.rafael | 196 | | Rafael Souza: associate professor at USP São Paulo, owner of the PtEn-CS corpus.
p.rafaela | 195 | | Rafaela Sousa: MSc student Ines co-supervises with Anneke, started in May; from Coimbra.
p.karim | 195 | | Karim Haddad: postdoc, dialect and speaker ID; Ines's go-to for ECAPA and x-vector questions.
p.labmgr | 194 | | Lab manager: Gwen Okafor, room B-4.02, ext. 5521. Travel claims, hardware orders, keys.
p.admin | 194 | cluster | kestrel admin: Dmitri Sokolov, reachable on #kestrel-help.
- | 186 | | Drafted an email to Rafael asking for the speaker metadata CSV for PtEn-CS.
- | 184 | | Rafael sent the metadata: 412 speakers, 58% Brazilian.
- | 181 | todo | Todo: ask Karim whether ECAPA embeddings would help as an extra input for CS-ASR.
- | 179 | | Karim thinks not worth it for CS-ASR, speaker info is already in the encoder.
- | 157 | | Rafaela's first week: gave her access to kestrel and the W&B team.
p.committee | 130 | | Thesis committee: Anneke Vos, Anika Voss, and Prof. Julien Caron (linguistics) as third member.
mtg.advisor.2 | 118 | | Anneke 1:1 moves to Thursdays 14:00 for the fall term, she teaches Tuesday mornings.
p.labmgr.2>p.labmgr | 88 | | Gwen Okafor on parental leave Sep 8 to March; Louis Tremblay covers the lab manager job (ext. 5524, same room).
p.coadvisor.2 | 66 | | Anika Voss left Lumen Labs for an assistant professor post at McGill; co-supervision continues.
p.admin.2 | 64 | cluster | Priya Raman took over kestrel admin; Dmitri moved to the research computing team downtown.
- | 65 | | Priya's welcome email to kestrel users: maintenance window the first Tuesday of each month, 06:00–10:00.
mtg.coadvisor.2 | 62 | | Anika's monthly call: the month's second Friday, 11:00 (her McGill timetable).
p.tberg.2>p.tberg | 57 | | Tomas Berg left the lab Oct 31 for Vocalis AI in Toronto; personal email tomas.berg.ml@gmail.com.
- | 56 | | Tomas's farewell lunch at the Vietnamese place on Saint-Laurent.
p.meiling.2 | 52 | | Mei Ling got a lectureship at Edinburgh from January; she keeps leading MakST.
p.committee.2 | 45 | | Julien Caron is off the committee for his sabbatical; Prof. Nadia Benali (computational linguistics, UdeM) takes the third seat.
mtg.advisor.3>mtg.advisor.2 | 28 | meetings | Anneke 1:1: Wednesdays 9:30 from November on, on Zoom when she travels.
"""

PREFS = """
pref.answer | 199.5 | pref | Ines likes answers terse: bullets, commands she can paste, no preamble.
pref.lang | 199 | | Ines mixes English and Portuguese; answer in English unless she writes the whole message in Portuguese.
pref.editor | 198 | | Ines's editor is VS Code, with Vim keybindings through the Vim extension.
pref.plot | 196 | | Plots: seaborn whitegrid style, Okabe-Ito palette.
pref.cite | 195 | | Citation manager: Zotero with Better BibTeX, keys like carvalho2025codeswitch.
pref.notes | 194 | | Paper notes go in Obsidian; the vault is a git repo at ~/notes.
pref.writing | 193 | | Ines writes best 7–10am; keep those hours free when suggesting meeting slots.
pref.remind | 192 | | Reminders the evening before, not the morning of.
pref.overleaf | 180 | | Drafts live on Overleaf; Ines wants a latexdiff PDF before anything goes to Anneke.
pref.shell | 175 | | fish shell on the laptop, bash on the clusters; tmux sessions named after the project.
pref.tables | 150 | pref | Tables: booktabs, best number bold, second best underlined, WER to one decimal.
pref.editor.2 | 125 | | Ines moved to Neovim (LazyVim) for everything; VS Code only for notebooks.
pref.cite.2 | 108 | | Ines is trying Paperpile for the ICASSP paper since Mei Lin shares a folder there.
pref.plot.2>pref.plot | 90 | pref | Plots in plain matplotlib with SciencePlots ('science', 'ieee'), no seaborn; paper figures 3.4 in wide.
pref.writing.2 | 60 | | Writing block 9–12 since the Rosemont move; the commute eats the early morning.
pref.cite.3 | 50 | | Back on Zotero for citations; the Paperpile export mangled the BibTeX keys.
pref.editor.3 | 31 | | VS Code full-time again, Neovim LSP kept breaking on kestrel.
"""

DECISIONS = """
dec.fp | 176 | | Decision: bf16 instead of fp16 for every CS-ASR run; fp16 gave NaN losses after ~12k steps.
dec.vocab | 173 | | CS-ASR tokenizer: SentencePiece unigram, 5k shared pt/en vocab.
dec.icassp | 160 | deadline | Plan: Distil-PT and the CS-ASR extension both go to ICASSP 2027.
dec.seeds | 135 | | Every table reports the mean of 3 seeds (Anneke's ask after the Interspeech reviews).
dec.vocab.2 | 128 | | CS-ASR tokenizer back to 1k BPE: the 5k unigram cost 0.9 WER on English insertions.
dec.lm | 120 | | No external LM in CS-ASR decoding for the paper, so it stays comparable to the Whisper baselines.
dec.neurips | 110 | | Skipping NeurIPS in December: proposal prep comes first.
dec.ger | 100 | ger | GER-PT goes to ARR October (Oct 15 deadline).
dec.icassp.2 | 95 | | Only the CS-ASR extension goes to ICASSP 2027; Distil-PT waits for ARR October, no time for both.
dec.ger.2>dec.ger | 44 | ger | GER-PT held for the February ARR cycle: the USP agreement for releasing n-best lists isn't signed.
dec.neurips.2 | 25 | | Going to NeurIPS after all for the workshop poster (Dec 10); Anneke pays from the NSERC grant.
dl.camera | 188 | deadline | Interspeech camera-ready due Jun 19.
dl.camera.2 | 184 | | ISCA pushed the camera-ready to Jun 24.
dl.proposal | 170 | | Thesis proposal defense set for Nov 18.
dl.icassp | 150 | deadline | ICASSP 2027 paper deadline: Sep 16, 23:59 AoE.
dl.icassp.2>dl.icassp | 84 | deadline | ICASSP deadline extended by a week, to Sep 23 AoE.
dl.proposal.2 | 71 | | Proposal defense pushed to Dec 9, Julien Caron can't do November.
dl.proposal.3 | 27 | | Proposal defense on Jan 20, 13:00, room B-2.10; Nadia Benali needed a January date.
dl.taslp | 18 | deadline | TASLP submission target Jan 31; Anneke wants a full draft by Jan 10.
"""

IDENTIFIERS = """
id.office | 199.5 | | Ines's desk: room B-3.14, desk 4.
id.stipend | 199.5 | | Stipend: $27,000/yr from Anneke's NSERC grant.
id.interspeech | 191 | | Interspeech 2026 paper #1893, "Language-aware CTC for code-switched Portuguese–English ASR", accepted as a poster.
id.wandbdir | 186 | | WANDB_DIR=/scratch/icarvalho/wandb in .bashrc on kestrel.
id.hfhome | 186 | | HF_HOME=/scratch/icarvalho/hf on kestrel.
id.account | 177 | cluster | SLURM accounts: def-avos on kestrel, rrg-avos-ab on nimbus (the RAC allocation).
id.arxiv | 165 | | arXiv preprint of the Interspeech paper: 2606.04417.
id.grant | 158 | travel | ISCA travel grant for Interspeech: $1,200 approved.
id.hotel | 150 | travel | Sydney hotel: Ibis Darling Harbour, booking ref 7713-RKQ, Aug 21–29.
id.flight | 148 | travel | Interspeech flights: AC303 Montreal→Vancouver Aug 19 morning, then AC33 Vancouver→Sydney the same night.
id.interspeech.2 | 140 | | Interspeech #1893 moved from poster to oral: Tue Aug 25, 14:20, session "Multilingual ASR II".
id.quota | 135 | cluster | kestrel /scratch quota for icarvalho: 2 TB.
id.ticket | 130 | cluster | kestrel ticket HELP-2291: NCCL timeouts on a100-long node k-gpu17.
id.ticket.2 | 122 | | HELP-2291 closed: k-gpu17 had a bad InfiniBand cable; Dmitri drained the node and swapped it.
id.office.2>id.office | 102 | | Lab moved up to the 4th floor; Ines's desk is B-4.07, window side.
id.claim | 92 | travel | Interspeech travel claim TC-88412 submitted to Gwen: $2,260 after the ISCA grant.
id.job | 80 | | SLURM job 4481207 on nimbus: the PT-SSL base run, 32 GPUs, 250k steps.
id.icassp | 69 | | ICASSP 2027 submission id 4127 (the CS-ASR extension), submitted Sep 23 at 21:40.
id.stipend.2 | 66 | | FRQNT doctoral scholarship came through ($21,000/yr); Anneke tops it up to $30,000 total from September.
id.quota.2>id.quota | 63 | | Priya raised the kestrel /scratch quota to 5 TB (ticket HELP-2430).
id.hfhome.2>id.hfhome | 61 | | HF_HOME=/project/rrg-avos/hf_cache, shared with the lab; the scratch purge deleted the old cache.
"""
