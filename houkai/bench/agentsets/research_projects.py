# ruff: noqa: E501  (hand-written data tables)
"""The ``research`` set's experiments, written by hand: parallel facts and their updates.

One line per memory: ``key | days_ago | tags | text``. A key ``cs.best.2`` is the second
statement on topic ``cs.best``; ``new>old`` marks a memory that carries a ``supersedes``
link to an older one; ``-`` is a note no question asks about. Seven experiments hold the
same kinds of fact (dataset and version, model size, learning rate and batch, cluster
partition, best metric, status, who is in charge, W&B project, config path) in nearly
the same words. See :mod:`.research`.
"""

from __future__ import annotations

PROJECTS = """
cs.status | 199 | cs-asr | CS-ASR (Portuguese–English code-switched ASR) is thesis chapter 2 and the main thing Ines works on.
cs.data | 198 | | CS-ASR trains on PtEn-CS v1.2, about 310h of code-switched speech (São Paulo and Lisbon speakers).
cs.model | 198 | | CS-ASR model: Conformer-L encoder, hybrid CTC/attention decoder, 118M params.
cs.lr | 197 | | CS-ASR: peak LR 5e-4, batch 256 utterances, 10k warmup steps, Noam schedule.
cs.cluster | 197 | cluster | CS-ASR jobs go to kestrel, partition a100-long (72h limit).
cs.owner | 196 | | Rafael Souza at USP is in charge of CS-ASR's PtEn-CS data: transcription guidelines, relabels, speaker metadata.
cs.wandb | 196 | | W&B for CS-ASR: project ines-c/cs-asr, the LR sweep is sweep 7hq2kx.
cs.config | 195 | | CS-ASR config path: configs/csasr/conformer_l.yaml
- | 194 | | Ines walked through the CS-ASR repo layout: espnet2 fork under third_party/, recipe in egs2/ptencs/asr1.
cs.best | 170 | | CS-ASR best so far: 21.4% WER on PtEn-CS dev (r-0398).
- | 168 | | r-0401 and r-0402 were seed repeats of r-0398: 21.5 and 21.9, nothing new.
cs.lr.2>cs.lr | 141 | cs-asr | Run r-0412 diverged at step 18k; lowered CS-ASR peak LR to 2e-4. Batch stays 256.
- | 140 | | r-0412 loss curve: spike at 17.6k, NaN by 18.1k. Grad norm had been creeping up since 12k.
- | 139 | | r-0418 to r-0425 were a SpecAugment grid, none of them beat the baseline.
cs.best.2 | 131 | | CS-ASR best dev WER 19.8 with r-0431 (LR 2e-4, two extra time masks in SpecAugment).
- | 129 | todo | Ines wants the r-0431 checkpoint copied to /project before the scratch purge.
cs.data.2 | 92 | | PtEn-CS v1.3 is out after Rafael's relabel of the Brazilian part: 342h. CS-ASR retrains on it from r-0446 on.
cs.cluster.2 | 74 | | CS-ASR jobs run on nimbus, partition gpu_h100, since the RAC allocation started Sep 18.
cs.best.3 | 58 | cs-asr | CS-ASR new best: 18.9 WER on PtEn-CS v1.3 dev, r-0473.
- | 57 | | r-0473 decoded with beam 10; beam 20 gave 18.8 but twice as slow, not worth it for the tables.
cs.status.2 | 19 | | CS-ASR experiments frozen at r-0473; the TASLP draft is with Anneke for comments.
kd.status | 190 | distil | Distil-PT: distilling whisper-large-v3 into a small Portuguese student. Side project with Tomas.
kd.data | 189 | | Distil-PT distills on Common Voice pt 17.0 plus MLS Portuguese (pseudo-labels from the teacher).
kd.model | 189 | | Distil-PT student: 4 decoder layers, 166M params; the teacher is whisper-large-v3.
kd.lr | 188 | | Distil-PT: LR 1e-4, batch 64 per GPU on 8 GPUs.
kd.cluster | 188 | | Distil-PT runs on nimbus, partition gpu_h100.
kd.owner | 187 | | Tomas Berg co-leads Distil-PT with Ines; he owns the training loop and the pseudo-labelling.
kd.wandb | 187 | | Distil-PT W&B project: ines-c/distil-pt
kd.config | 186 | | Distil-PT config path: configs/distil/student_4L.yaml
- | 185 | | Tomas's pseudo-label filter: drop teacher outputs that disagree with the CTC head by more than 10% WER.
kd.best | 160 | | Distil-PT best: 9.7 WER on CV-pt test, 5.8x faster than the teacher (r-0405).
- | 158 | | Distil-PT idea for later: layer-wise distillation from teacher encoder layer 24. Tomas skeptical.
kd.data.2>kd.data | 104 | distil | Distil-PT data bumped to Common Voice pt 19.0 (+ MLS); the 17.0 numbers aren't comparable, baselines need a rerun.
kd.status.2 | 94 | | Distil-PT on hold until ICASSP is submitted.
kd.best.2 | 79 | | Distil-PT 8.9 WER on CV-pt 19.0 test (r-0455), 5.6x faster than the teacher.
kd.cluster.2 | 68 | | Distil-PT jobs go to kestrel a100-long again; the nimbus hours are kept for CS-ASR and PT-SSL.
- | 67 | | Started the Distil-PT baseline reruns on CV 19.0, three seeds each.
kd.status.3 | 66 | | Distil-PT picked back up after ICASSP, aiming at ARR October.
kd.owner.2>kd.owner | 55 | distil | Tomas handed Distil-PT over to Mei Lin before leaving; Mei Lin is in charge of it from here.
- | 54 | | Mei Lin and Ines went through Tomas's handover doc: two open bugs, one flaky eval script.
- | 53 | | Distil-PT bug: the pseudo-label cache key ignored the Common Voice version. Fixed and rerun.
kd.status.4>kd.status.3 | 46 | | Distil-PT submitted to ARR October, paper id 2871; waiting on reviews.
st.status | 185 | st | ST-Makhuwa: Emakhuwa→Portuguese speech translation with Mei Ling's group at Edinburgh; chapter 3 candidate.
st.data | 185 | | ST-Makhuwa uses MakST v0.3: 41h of Emakhuwa speech with Portuguese translations.
st.model | 184 | | ST-Makhuwa finetunes SeamlessM4T-medium, 1.2B params, LoRA on the decoder.
st.lr | 184 | | ST-Makhuwa: LR 3e-5, batch 32 with grad accumulation 4.
st.cluster | 183 | | ST-Makhuwa jobs go to kestrel, partition v100-short (fits in 32GB with LoRA).
st.owner | 183 | | Mei Ling at Edinburgh is in charge of MakST annotation for ST-Makhuwa.
st.wandb | 182 | | ST-Makhuwa W&B project: ines-c/st-makhuwa
st.config | 182 | | ST-Makhuwa config path: configs/st/seamless_med.yaml
st.best | 172 | | ST-Makhuwa best so far: 14.2 BLEU on MakST dev (r-0377).
- | 147 | | Ines asked how to report BLEU with the sacrebleu signature for the ST paper.
- | 144 | st | Ines unsure whether Emakhuwa tone marks should survive text normalisation.
- | 143 | | Mei Ling's answer on tone marks: strip them, the annotators mark them inconsistently.
st.data.2 | 120 | | MakST v0.4 from Mei Ling's group: 58h. ST-Makhuwa retrained on it.
st.best.2 | 114 | | ST-Makhuwa 16.0 BLEU on MakST v0.4 dev (r-0438).
st.cluster.2>st.cluster | 110 | cluster | v100-short is gone after the kestrel upgrade; ST-Makhuwa jobs go to a40-mid.
- | 59 | | Ines asked for a quick script to plot BLEU against hours of training data for MakST.
st.data.3 | 36 | st | MakST v0.5 for ST-Makhuwa: 63h and a cleaned test set (duplicates removed).
st.best.3>st.best.2 | 33 | | ST-Makhuwa best BLEU 17.3 on the v0.5 dev set, r-0544.
sner.owner | 180 | | Rafaela Sousa (MSc, Ines co-supervises) is in charge of SpokenNER-PT day to day.
sner.data | 180 | | SpokenNER-PT uses HAREM-speech v2.0: read-speech recordings of the HAREM corpus, 18h.
sner.model | 179 | | SpokenNER-PT: wav2vec2-base encoder plus a CRF head, 95M params.
sner.lr | 179 | | SpokenNER-PT: LR 5e-5, batch 16.
sner.cluster | 178 | | SpokenNER-PT jobs go to kestrel, partition a100-short.
sner.wandb | 178 | | SpokenNER-PT W&B project: ines-c/spoken-ner
sner.config | 177 | | SpokenNER-PT config path: configs/sner/w2v_crf.yaml
sner.best | 150 | | SpokenNER-PT best entity F1 61.3 on HAREM-speech dev.
sner.status | 138 | | SpokenNER-PT shelved for the summer: Rafaela's annotation is too slow and chapter 2 comes first.
sner.status.2 | 47 | | SpokenNER-PT back on as Rafaela's MSc thesis; Ines advises one hour a week, Fridays 13:00.
- | 42 | | Ines helped Rafaela set up her first W&B sweep.
sner.best.2 | 21 | | SpokenNER-PT entity F1 64.0 on dev: Rafaela's r-0561 with the PT-SSL base encoder.
"""

MORE_PROJECTS = """
did.owner | 176 | | Karim Haddad (postdoc) is in charge of DialectID; Ines only helps with the data loader and the eval script.
did.data | 176 | | DialectID trains on PT-Dial v1.0: European, Brazilian, Angolan and Mozambican Portuguese, 220h.
did.model | 175 | | DialectID model: ECAPA-TDNN, 20M params.
did.lr | 175 | | DialectID: LR 1e-3, batch 128, cosine schedule.
did.cluster | 174 | | DialectID jobs go to kestrel, partition a40-mid.
did.wandb | 174 | | DialectID W&B project: ines-c/dialect-id
did.config | 173 | | DialectID config path: configs/dialect/ecapa.yaml
- | 169 | | Lab meeting: Karim presented DialectID; Anneke wants per-variety confusion matrices.
did.best | 156 | | DialectID best accuracy 87.2% on PT-Dial dev.
- | 154 | | The Angolan clips in PT-Dial sound oddly clean, maybe studio-read? Half a thought, come back to it.
did.data.2>did.data | 86 | dialect | PT-Dial v1.1 fixes the Angolan/Mozambican label swap; every DialectID number from before it is void.
did.best.2 | 80 | | DialectID 89.5% accuracy on PT-Dial v1.1 dev (r-0451).
ssl.owner | 172 | | Thomas Bergh at KTH runs the PT-SSL pretraining infra (their fairseq2 fork).
ssl.data | 171 | | PT-SSL pretrains on RadioPT v2: 9.6k hours of Portuguese radio, pt-PT and pt-BR.
ssl.model | 171 | | PT-SSL: wav2vec2-large config, 317M params.
ssl.lr | 170 | | PT-SSL: peak LR 5e-4, 1.6h of audio per batch, 400k steps planned.
ssl.cluster | 170 | | PT-SSL runs on nimbus, partition gpu_h100, 32 GPUs.
ssl.wandb | 169 | | PT-SSL W&B project: kth-speech/pt-ssl (Thomas Bergh's team account, Ines has editor access).
ssl.config | 169 | | PT-SSL config path: configs/ssl/w2v2_large.yaml
- | 164 | | First PT-SSL sync call with Thomas Bergh; notes in Obsidian under ssl/2026-06-20.
- | 162 | | Ines doesn't want to own the PT-SSL infra, only the downstream evals. Said it twice.
- | 111 | | Thomas Bergh asked for more pt-PT radio; Ines suggested the RTP archives, licence unclear.
ssl.best | 110 | | PT-SSL checkpoint at 200k steps: 12.1 WER finetuned on 10h.
ssl.model.2>ssl.model | 83 | ssl | PT-SSL downsized to the wav2vec2-base config, 95M params: the nimbus allocation came in at half of what Anneke asked for.
ssl.config.2 | 82 | | PT-SSL config path after the downsizing: configs/ssl/w2v2_base.yaml
ssl.best.2 | 26 | | PT-SSL base at 250k steps: 11.4 WER finetuned on 10h.
ger.owner | 150 | | Mei Lin is in charge of GER-PT; Ines provides the n-best lists and the eval.
ger.data | 149 | | GER-PT trains on 10-best lists from CS-ASR r-0431 (nbest-v1).
ger.model | 149 | | GER-PT: Llama-3.1-8B with LoRA rank 16.
ger.lr | 148 | | GER-PT: LoRA LR 2e-4, batch 8, 3 epochs.
ger.cluster | 148 | | GER-PT jobs go to kestrel, partition a100-long.
ger.wandb | 147 | | GER-PT W&B project: ines-c/ger-pt
ger.config | 147 | | GER-PT config path: configs/ger/lora_llama8b.yaml
- | 161 | | Mei Lin asked for the r-0431 n-best lists in JSONL; wrote the export script together.
ger.best | 100 | | GER-PT brings CS-ASR dev WER from 19.8 to 18.1.
ger.model.2 | 73 | ger | GER-PT base model: Qwen2.5-7B; the Llama licence clashes with the USP data agreement.
ger.model.3 | 72.8 | | Correction from Mei Lin: GER-PT uses Qwen2.5-7B-Instruct, not the base Qwen2.5-7B.
ger.data.2>ger.data | 60 | | GER-PT n-best lists regenerated from r-0473 (nbest-v2).
- | 51 | | Ines wants a short lit review of LLM-based ASR error correction for the proposal; gave her 9 papers.
ger.best.2 | 40 | | GER-PT on nbest-v2: dev WER 18.9 → 16.7.
"""
