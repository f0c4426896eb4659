# ruff: noqa: E501  (hand-written data tables)
"""The ``research`` set's personal life and day-to-day notes, written by hand.

One line per memory: ``key | days_ago | tags | text``, as in :mod:`.research_projects`.
Ines's life outside the lab (partner, family, cat, apartment, commute, health, travel)
has its own changing facts; most lines here are notes no question asks about (``-``):
session notes, reminders, drafts, small talk, half-finished thoughts. See :mod:`.research`.
"""

from __future__ import annotations

LIFE = """
life.partner | 199.5 | personal | Partner: Lucas Ferreira, together six years, came to Montreal with Ines.
life.lucasjob | 199.5 | | Lucas is a backend developer at Pendo Finance, hybrid, 3 days a week in the office.
life.cat | 199 | | Cat: Pimenta, 4-year-old orange tabby.
life.apt | 199 | home | Apartment: 4420 rue Saint-Denis, apt 3 (Plateau); rent $1,650.
life.commute | 198 | | Commute: bike down Saint-Denis, 15 min to campus.
life.mother | 197 | family | Ines's mother Graça lives in Porto; video call Sundays 18:00 Montreal time.
life.sister | 196 | family | Sister Beatriz is getting married in Porto on Oct 10.
life.allergy | 195 | health | Ines is allergic to penicillin.
life.diet | 195 | | Ines is vegetarian, eats fish once in a while.
life.climb | 190 | | Bouldering at Allez Up with Mei Lin, Mondays and Thursdays 19:00.
life.french | 185 | | French class Tuesday evenings 18:30 at the language centre, level B1.
life.physio | 175 | health | Physio for the wrist RSI: Tuesdays 8:00 at Physio Plateau, with Émilie.
life.catfood | 170 | | Pimenta eats Royal Canin Urinary SO since the bladder crystals in March.
life.gp | 160 | health | Family doctor: Dr. Marc Lemieux, CLSC Plateau.
life.lucasbday | 150 | | Lucas's birthday: Aug 14.
life.sister.2 | 148 | family | Beatriz's wedding moved to Oct 17, the venue was double-booked.
life.vet | 140 | | Vet: Hôpital vétérinaire Mont-Royal, Dr. Gagnon.
life.glasses | 100 | health | New glasses prescription: -2.25 both eyes (was -1.75).
life.apt.2>life.apt | 95 | home | New apartment from Sep 1: 6120 rue Chambord, Rosemont, 2nd floor; rent $1,480 with heating.
life.commute.2 | 93 | | From Rosemont: bike to Rosemont metro, orange line to campus, about 35 min.
life.physio.2>life.physio | 90 | health | Physio on Fridays 7:30 after the move, the Tuesday slot is gone.
life.french.2 | 85 | | French this term: B2, Mondays 17:30.
life.dentist | 80 | health | Dentist Oct 3, 10:15, Dr. Nguyen at Clinique dentaire Masson.
life.dentist.2 | 78 | | Dentist moved to Oct 8, 16:00, same clinic.
life.climb.2 | 76 | | Bouldering on Wednesdays only, at Bloc Shop Hochelaga (closer to Rosemont).
life.lucasjob.2 | 70 | | Lucas started at Ubisoft Montreal on Oct 5 (tools team), on-site in Mile End.
life.vetappt | 60 | | Pimenta's checkup Oct 14, 17:30.
life.vetappt.2 | 58 | | Pimenta's checkup moved to Oct 16, 9:00; Lucas takes her.
life.catfood.2 | 45 | | Vet put Pimenta on Hill's c/d Multicare; Royal Canin SO is out of stock everywhere.
life.flight | 40 | travel | Christmas in Porto: TAP TP258 Montreal–Lisbon Dec 19, then the train to Porto.
life.physio.3 | 20 | | Physio every other Friday from here on, the wrist is much better.
life.flight.2 | 15 | travel | Porto flight rebooked to Dec 21 (TP258 again) because of the NeurIPS trip.
life.commute.3>life.commute.2 | 12 | | Winter commute: bus 27 to Rosemont metro, then the orange line; bike stored till April.
"""

NOTES = """
- | 199.5 | | First session: Ines set up the memory file; wants it for experiments, deadlines and "life admin".
- | 199.5 | | Ines said she mostly wants a second brain that remembers the boring stuff.
- | 198 | | Ines grew up in Matosinhos, came to Montreal for the PhD in fall 2025.
- | 196 | personal | Lucas made francesinha on Saturday; Ines says it was almost like home.
- | 194 | todo | Reminder: renew the RAMQ health card before it expires in July.
- | 190 | | Ines asked for a vegetarian recipe with chickpeas and whatever's left in the fridge.
- | 188 | | Pimenta knocked a mug onto Ines's laptop keyboard; the laptop survived.
- | 185 | | Small talk: Ines is rewatching Gilmore Girls in the evenings.
- | 182 | todo | Buy a birthday present for Graça (her birthday is June 12).
- | 180 | | Ines sent flowers to her mother in Porto.
- | 178 | | 31°C and the lab AC is broken; Ines working from the library.
- | 174 | personal | Lucas and Ines went to the Jazz Fest; Ines liked a Cape Verdean band.
- | 171 | | Ines asked what the lease renewal rules are in Quebec; the notice period is three months.
- | 168 | home | Ines and Lucas decided not to renew the Saint-Denis lease; the rent goes up 9%.
- | 163 | | Apartment hunting: Rosemont and Villeray on the shortlist.
- | 158 | home | Visited two places in Rosemont; the one on Chambord had good light.
- | 154 | | Ines and Lucas applied for the Rosemont place, waiting to hear back.
- | 147 | health | Ines's wrist hurting again after the long writing week.
- | 145 | personal | Ines's friend Sofia visiting from Lisbon July 20–24.
- | 142 | | Ines asked for brunch places in Mile End for Sofia's visit.
- | 133 | travel | Ines asked what to pack for Sydney in late August (winter there).
- | 128 | todo | Reminder: ask Lucas to give Pimenta her meds while Ines is in Sydney.
- | 123 | | Booked Lucas's birthday dinner at Montréal Plaza, 19:30.
- | 115 | personal | Ines bought a 65-litre backpack for the trip.
- | 105 | travel | Ines's Australian ETA got approved.
- | 101 | travel | Ines landed in Sydney; jet lag bad, asked for a plan to shift her sleep.
- | 98 | | Ines walked around the harbour and sent photos to Lucas.
- | 94 | | Back in Montreal; moving boxes everywhere.
- | 93 | home | Moving day was rough; Pimenta hid under the bathtub for six hours.
- | 91 | | New internet contract for the Chambord place: Lucas handles it.
- | 88 | | Ines asked for a cheap bookshelf; ended up with an IKEA Billy.
- | 83 | travel | Flights to Porto for the wedding: Oct 15–20, Lucas booked them.
- | 79 | | Ines's French teacher says her listening has improved a lot.
- | 74 | | Ines asked how to say maid of honour in Portuguese for her speech: madrinha.
- | 70 | family | Drafted a short wedding speech for Beatriz in Portuguese.
- | 55 | health | GP visit about sleep; nothing worrying, sleep hygiene advice.
- | 48 | travel | Ines flies to Porto tonight for the wedding.
- | 46 | | Graça asked when Ines is coming for Christmas; around Dec 20.
- | 44 | personal | Beatriz's wedding was beautiful; Ines cried during her own speech.
- | 41 | | Back from Porto, jet-lagged.
- | 38 | | First frost; Ines asked where to buy decent winter boots.
- | 35 | family | Christmas plan: the 24th in Porto with Graça, the 26th in Braga with Lucas's parents.
- | 22 | | Ines asked for gift ideas for Graça; settled on a scarf from a Montreal designer.
- | 16 | todo | Reminder: book boarding for Pimenta while they're in Porto.
- | 13 | | Pimenta's boarding booked at Chez Minou, Dec 20 to Jan 4.
- | 10 | | Snow day; Ines worked from home.
- | 8 | | Ines runs 5k on Saturdays; asked for a winter route that's cleared of snow.
- | 6 | | Lucas's team shipped a build, he's been working late all week.
- | 4 | | Ines feels behind on the TASLP paper; suggested two-hour blocks.
- | 199 | | Ines's coffee order is a double espresso; she jokes it's her real advisor.
- | 192 | personal | Lucas's parents live in Braga; they call on Lucas's phone, not hers.
- | 187 | | Ines asked how to get a Quebec driving licence from a Portuguese one; it's a straight exchange.
- | 183 | | Ines mentioned she hates the Tuesday lab-meeting pastries; nobody else does.
- | 176 | todo | Reminder: pay the Hydro-Québec bill before the 20th.
- | 169 | | Lucas wants a second cat; Ines says not before the thesis proposal.
- | 160 | personal | Ines and Lucas biked the Lachine canal on Sunday; 40 km.
- | 152 | | Ines asked for a good Portuguese bakery in Montreal; Café Oliveira came up.
- | 138 | health | Ines asked for wrist stretches between typing sessions; gave her three.
- | 125 | | Ines asked how tax on the scholarship works in Quebec; told her to check with the university's tax clinic.
- | 118 | todo | Reminder: check the passport expiry before Sydney. (Checked: fine until 2029.)
- | 112 | personal | Beatriz sent the wedding invitation PDF; Ines is the madrinha.
- | 103 | | Lucas's birthday dinner went well; he loved the tasting menu.
- | 90 | | Ines asked for a checklist for changing address in Quebec: SAAQ, RAMQ, bank, Canada Post forwarding.
- | 86 | home | Address change done at SAAQ and RAMQ; the bank still pending.
- | 76 | | Ines says the new neighbourhood has a great bakery on Masson.
- | 66 | | Ines treated herself to a new keyboard after the ICASSP deadline; low-profile, quiet switches.
- | 61 | personal | Pimenta discovered the balcony at the new place and won't come back in.
- | 52 | | Ines asked for a good gift for Tomas's farewell; the lab chipped in for a book and a plant.
- | 33 | | Ines found a Portuguese grocery on Saint-Laurent that sells real bacalhau.
- | 27 | | Lucas started his winter tire appointment saga; nothing for Ines to do.
- | 19 | health | Flu shot done at the campus pharmacy.
- | 12 | | Ines is knitting a scarf for Lucas, don't mention it if he's around.
- | 2 | personal | Ines and Lucas put the Christmas tree up early; Pimenta already attacked it.
- | 0.2 | | Ines said thanks for the summary and logged off early.
"""

WORK = """
- | 199 | | Ines asked for a shell one-liner to tail the newest SLURM log; gave her tail -f on the newest slurm-*.out via ls -t.
- | 197 | todo | Todo: clean up the egs2/ptencs recipe before Rafaela starts using it.
- | 195 | | Explained CTC prefix scoring vs plain beam search; Ines wanted it for the proposal background.
- | 193 | reading | Ines is rereading the Whisper paper for the distillation baseline section.
- | 192 | reading | Reading list: MMS paper, OWSM v3.1, the SeamlessM4T tech report.
- | 191 | | Ines vented about reviewer 2 on an old workshop paper. Nothing to act on.
- | 189 | | Helped write a data loader that buckets utterances by length; saves about 20% padding.
- | 187 | | Ines asked how to resume a W&B run under the same id after preemption: resume="allow" and pass the id.
- | 183 | | Ines asked whether WER should count hyphenated code-switched words as one token. No clear answer yet.
- | 177 | | Camera-ready checklist: copyright form, 4 pages plus refs, PDF eXpress check.
- | 176 | | Ines wanted a regex that strips [laughter] and [noise] tags from transcripts.
- | 174 | | Debugged a deadlock in the DDP eval loop: one rank skipped the last batch.
- | 171 | | Ines found 3 duplicate utterances between PtEn-CS train and dev; emailed Rafael.
- | 167 | reading | Ines liked the language-ID-aware MoE paper; maybe cite it in chapter 2.
- | 166 | | LaTeX macro Ines wanted: \\newcommand{\\wer}{WER$\\downarrow$}.
- | 159 | | Sketched the proposal outline: intro, background, ch2 CS-ASR, ch3 low-resource ST, ch4 plan.
- | 155 | todo | Remind Ines to renew the kestrel account before Jul 1 (yearly).
- | 153 | | Ines renewed the kestrel account.
- | 151 | | Long chat about whether SpecAugment time warping matters; for Conformer, probably not.
- | 146 | cluster | kestrel upgrade announced for Aug 10–12; the V100 nodes are being retired.
- | 145 | | Mei Ling sent the MakST annotation guidelines v2, 14 pages.
- | 137 | | Anneke liked the per-language error breakdown plot; wants it in the talk.
- | 136 | | Gave Ines a script to split WER by the language of each reference word.
- | 134 | | Summary of the Interspeech reviews sent to Anneke.
- | 132 | todo | Todo: ask Gwen about the per diem for Australia.
- | 127 | travel | Gwen says the per diem for Sydney is $95/day.
- | 126 | | Rewrote the related work paragraph on code-switching with Ines, 310 words down to 190.
- | 124 | idea | The attention decoder may overfit on English named entities? Half-formed, check later.
- | 121 | cluster | Ines annoyed that nimbus queue waits are 20h+ this week.
- | 119 | | Ines asked how to run seeds as a SLURM job array: --array=0-2 with SEED=$SLURM_ARRAY_TASK_ID.
- | 117 | | Practice talk in lab meeting went OK; Karim said slide 7 is too dense.
- | 116 | | Slide 7 split into two.
- | 113 | | Ines asked for a pun for the talk title. She didn't use any of them.
- | 108 | cluster | kestrel is back after the upgrade; a new a40-mid partition with a 24h limit.
- | 106 | | Ines asked for a checklist for the oral: timer, backup PDF on a USB stick, clicker batteries.
- | 99 | | Talk done; questions about the LID loss weight and about Galician. Someone from Meta asked about the data.
- | 97 | | Met a student from Maputo working on Emakhuwa ASR; Ines wants to connect them with Mei Ling.
- | 96 | reading | Interspeech notes dumped into Obsidian: three papers to follow up on.
- | 89 | | ICASSP draft: 3 of 4 pages done, the ablation table is missing.
- | 87 | | Ines asked how to make a figure span both columns in the IEEE template (figure*).
- | 81 | | ICASSP ablations: LID loss on/off, tokenizer, intermediate CTC at layer 6 vs 9.
- | 77 | | Ines pulled an all-nighter on the ICASSP draft. Suggested stopping at 2am; she didn't.
- | 75 | cluster | First nimbus jobs queued under the RAC allocation.
- | 72 | | Anneke's comments on the ICASSP draft: cut the intro, move Table 2 up.
- | 68 | | Post-deadline: Ines wants to sleep for a day.
- | 63 | | Ines asked how to keep a tmux session alive across kestrel login nodes. It can't; use the same login node.
- | 50 | | Proposal doc at 23 pages; the target is 30.
- | 49 | cluster | nimbus maintenance on Oct 20, jobs held.
- | 43 | | Mei Lin's USP agreement draft went back to legal again.
- | 39 | | Ines asked how many GPU hours chapter 2 used; rough estimate 11k A100 hours.
- | 37 | | Practice proposal talk with Mei Lin as audience: 38 minutes, needs to be 30.
- | 34 | idea | Chapter 3 might be too thin; maybe fold DialectID in? Not decided.
- | 32 | | Anneke: keep chapter 3 on speech translation, DialectID goes in an appendix at most.
- | 30 | | Reading group: Ines presents the OWSM-CTC paper on Nov 5.
- | 24 | | Mei Ling visiting Montreal Nov 12–14; Ines wants to show her the lab and get dinner.
- | 23 | | NeurIPS workshop poster: ordered at the campus print shop, 36x48 in.
- | 14 | | Ines asked for the proposal slides template from last year's defenses; Karim had one.
- | 11 | | Rafaela's committee pre-meeting went fine.
- | 9 | reading | Ines spent the day on TASLP related work: 40 new refs in Zotero.
- | 7 | | ARR reviews for Distil-PT are out: 3.5, 3, 2.5. Mei Lin wants to respond; Ines unsure.
- | 5 | | Drafted rebuttal points for reviewer 3 (missing comparison with distil-whisper).
- | 3 | travel | Ines wants a NeurIPS packing list.
- | 2 | | Poster PDF sent to the print shop.
- | 198 | | Ines asked what the lab's conventions for run ids are: r- plus a zero-padded counter from the shared spreadsheet.
- | 196 | cluster | kestrel login hosts: kestrel-login1 and kestrel-login2; login2 is usually less loaded.
- | 190 | | Ines wants commit messages in English, imperative mood; she asked for a git hook that checks it.
- | 186 | | Lab meeting rota: Ines presents every sixth week.
- | 180 | | Ines asked how to profile a slow data loader; py-spy on the worker processes showed the resampling.
- | 175 | | Moved audio resampling to preprocessing; epoch time down from 41 to 26 min.
- | 172 | | Ines asked for a one-paragraph summary of the Conformer paper for Rafaela.
- | 165 | idea | Idea: use the DialectID embeddings to pick the LID prior in CS-ASR decoding. Probably too cute.
- | 163 | | Ines asked whether to use sclite or jiwer for WER; she's going with jiwer plus a sanity check against sclite.
- | 156 | | Ines helped Karim fix the sampler in DialectID; the classes were badly unbalanced.
- | 149 | | Ines wants to check the license of RadioPT v2 before anything gets released.
- | 142 | | Anneke wants a one-page status of all projects by Friday; drafted it.
- | 135 | | Two-line email to Rafael thanking him for the quick turnaround on the duplicates.
- | 130 | | Ines asked for a better way to diff two YAML configs; suggested dyff.
- | 123 | reading | Ines read the new OWSM paper; nothing that changes the plan.
- | 114 | | Ines asked how to convert the talk to 16:9 without redoing the figures; mostly scaling.
- | 109 | | Mei Lin asked Ines to review her GER-PT prompt template; Ines suggested putting the n-best in rank order.
- | 104 | cluster | kestrel jobs failing with CUDA error 804 after the upgrade; the driver got fixed the next day.
- | 100 | | Interspeech badge pickup at the ICC Sydney, level 2.
- | 95 | | Ines asked for a quick recap of the talk feedback to put in Obsidian.
- | 85 | | Ines wanted tips on a tight ICASSP abstract; 150 words, result in the second sentence.
- | 82 | | Ines asked for the IEEE copyright form link again.
- | 78 | idea | Idea: n-best lists with word-level LID tags for GER-PT? Send to Mei Lin.
- | 71 | | Mei Lin liked the LID-tag idea; she'll try it after the Qwen swap.
- | 64 | | Ines wants a cron job that warns when scratch usage goes over 80%; wrote it with her.
- | 58 | | Ines asked for a neat way to print confusion matrices in LaTeX; went with a pgfplots heatmap.
- | 45 | | Anneke wants the proposal to have a risk section: what if MakST stays small.
- | 36 | | Ines asked how to write the risk section without sounding defeatist.
- | 28 | | The reading group moved to Thursdays? Ines isn't sure, she'll check the Slack.
- | 20 | | Ines asked for help tightening the proposal abstract; 250 words down to 180.
- | 15 | | Mei Ling sent comments on the ST chapter draft; mostly about the data statement.
- | 8 | cluster | nimbus queue is quiet this week; Ines queued all the TASLP ablations at once.
- | 1 | | Ines wants a rundown of everything still open before NeurIPS.
"""
