//! The repair's machine. A `Repair` holds the input as repaired so far, the groups kept apart,
//! the repairs made and the plan they give; each `round` either finds nothing open (`Passed`,
//! then `emit`), or separates the open pairs of own inits in one `Trial`
//! (`detach_own_inits`), or the leading pairs of one victim but the last
//! (`keep_writers_off_one_victim`, `one_victim`), or else one pair by the first `Trial` that
//! does (`first_separating`), or accepts the pair as a hazard of the input (`hazards`); every
//! edit (`Action`) is made at most once.
//!
//! Detaching own inits. A round first separates, in one trial, every open pair whose victim is
//! the init of a loop carry or `if` result that sits on the victim's buffer with the writer on
//! or inside it (an `MR-R002`/`MR-R005` candidate whose init is the victim): the place's writes
//! reach its init's bytes wherever the packer puts the other groups, so detaching it is the
//! edit such a pair needs, and the keep-own trials before it are skipped (over the conformance
//! corpus none of the 75 pairs a keep-own trial separated had such a candidate). The edits are
//! made in the order of their findings, planned and checked once; a pair the trial leaves
//! named is left to the one-pair rounds for the rest of the repair, and the trial is
//! made once more without it (`Repair::detach_own_inits`). A function with k such pairs thus
//! costs about one plan and check for them, not k (ARCHITECTURE "What a repair costs").

use rustc_hash::FxHashSet;

use crate::candidates::{Action, PyptoPlan, Sites, apply, candidates, pair_names};
use crate::diagnostics::{Diagnostic, Severity};
use crate::hazards::{FindingKey, hazards_of, input_hazard, key, unshared_findings};
use crate::input_plans::{Edited, InputPlans, KeptThePair, Planned, plan_separating};
use crate::ir::codes;
use crate::ir::{FreshBases, Function, Name, VarId};
use crate::message::{Made, PlacedBy, RepairText, UserNames};
use crate::one_victim::{losses_stay_after, moved_whole_and_alone};
use crate::plan::{Completion, FunctionPlan, PlanConfig, PlanError, PlanOptions, plan_function};
use crate::safely::{MAX_ROUNDS, SafePlanError, Safely};
use crate::verify::{
    Clobber, Finding, PlanInput, VerifyOptions, Worded, check_plan, check_plan_separating,
};

pub(crate) fn repair_checked(
    input: &Function,
    plan_input: &PlanInput,
    first: Result<(Planned, Vec<Finding>), PlanError>,
    plans: InputPlans,
    safely: Safely<'_>,
) -> Result<(FunctionPlan, Option<Function>), SafePlanError> {
    let (mut repair, check) = match begin(input, plan_input, first, plans, safely)? {
        Begun::Exact(plan) => return Ok((*plan, None)),
        Begun::Rounds(repair, check) => (repair, check),
    };
    for _ in 0..MAX_ROUNDS {
        if repair.round(&check)? == Round::Passed {
            return repair.emit(&check, safely.report);
        }
    }
    Err(SafePlanError::Unrepaired(vec![Diagnostic::error(
        codes::UNREPAIRED,
        format!(
            "the plan of '{}' still fails the checker after {MAX_ROUNDS} repairs",
            input.name
        ),
        input.span,
    )]))
}

/// How the repair of a checked plan begins.
enum Begun<'a> {
    /// `--exact`: PyPTO's plan as it is, the checkers' findings in its report.
    Exact(Box<FunctionPlan>),
    /// The rounds to make, and what their trials are planned and checked with.
    Rounds(Box<Repair<'a>>, Check<'a>),
}

/// The repair of `first`, PyPTO's plan of `input` checked, before its first round: a plan
/// PyPTO's planner refuses for loop carries on one buffer (rules §S2) is planned with them
/// separated.
fn begin<'a>(
    input: &'a Function,
    plan_input: &'a PlanInput,
    first: Result<(Planned, Vec<Finding>), PlanError>,
    mut plans: InputPlans,
    safely: Safely<'a>,
) -> Result<Begun<'a>, SafePlanError> {
    let Safely {
        config,
        options,
        report,
    } = safely;
    if config.exact {
        let (plan, findings) = first.map_err(SafePlanError::Plan)?;
        let mut plan = plan.made(report);
        let names = UserNames::of(input.vars.len(), &plan.function);
        plan.report.diagnostics.extend(findings.iter().map(|f| {
            // `--exact` emits PyPTO's plan whatever the checkers find: what makes it
            // unsafe is a warning.
            let severity = if f.is_unsafe() {
                Severity::Warning
            } else {
                f.worded.severity
            };
            let worded = Worded {
                severity,
                ..f.worded.clone()
            };
            names.word(&plan.function, &worded)
        }));
        return Ok(Begun::Exact(Box::new(plan)));
    }
    // The input as repaired so far, once an edit changed it.
    let mut edited: Option<Function> = None;
    let mut own = FxHashSet::default();
    let mut repairs = Vec::new();
    let mut pypto = PyptoPlan::Round;
    let (plan, findings) = match first {
        // PyPTO's yield fixup would write one carry over the other (rules §S2 rejects it).
        Err(err) if err.0.code == codes::OVERLAPPING_CARRIES => {
            pypto = PyptoPlan::Refused;
            // The offset planner's trials plan without its search: they may not be refused.
            if InputPlans::packs(input, config) {
                plans.refused = Some(err);
            }
            let (planned, separated) = plan_separating(
                input,
                &mut plans,
                config,
                &mut own,
                &mut repairs,
                PlacedBy::Pypto,
            );
            // The separated input is another input, with plans of its own.
            if let Some(separated) = separated {
                plans = separated.plans;
                edited = Some(separated.input);
            }
            planned.map(|plan| {
                let findings = check_plan(plan_input, &plan.function, options);
                (plan, findings)
            })
        }
        first => first,
    }
    .map_err(SafePlanError::Plan)?;
    let check = Check {
        plan_input,
        user_vars: input.vars.len(),
        config,
        options,
    };
    let repair = Repair {
        original: input,
        from_trial: edited.is_some() || !own.is_empty(),
        edited,
        plans,
        own,
        repairs,
        plan,
        findings,
        applied: FxHashSet::default(),
        bases: None,
        unshared: None,
        inherent: Vec::new(),
        one_at_a_time: Vec::new(),
        unmerged: Vec::new(),
        pypto,
    };
    Ok(Begun::Rounds(Box::new(repair), check))
}

/// The repair between two rounds: the input as repaired so far, the groups kept apart, the
/// repairs made, and the plan they give with the checkers' findings on it.
struct Repair<'a> {
    original: &'a Function,
    /// The input as repaired so far, once an edit changed it.
    edited: Option<Function>,
    /// The plans of the input as repaired so far: the trials that keep one more group on its
    /// own allocation share its packing (the plan is its first, or was finished from it); an
    /// edit of the input starts afresh, from the packing its trial made.
    plans: InputPlans,
    own: FxHashSet<VarId>,
    repairs: Vec<Diagnostic>,
    plan: Planned,
    findings: Vec<Finding>,
    /// Whether `plan` is a trial's, laid out without the offset planner's search.
    from_trial: bool,
    /// The edits made: each is made once.
    applied: FxHashSet<Action>,
    /// The names of allocations the input as repaired so far does not use yet, once found
    /// (finding them reads every variable, [`FreshBases`]).
    bases: Option<FreshBases>,
    /// The hazards of the input itself (`hazards`): the unshared plan's findings, computed
    /// once a finding resists every edit, and the findings accepted as such.
    unshared: Option<Vec<FindingKey>>,
    inherent: Vec<FindingKey>,
    /// The pairs a trial detaching own inits left named: separated one at a time.
    one_at_a_time: Vec<(Name, Name)>,
    /// The victims whose writers' merged trial did not show the rounds it stands for.
    unmerged: Vec<VarId>,
    pypto: PyptoPlan,
}

/// What a round of the repair came to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Round {
    /// No finding is left open: the plan is the one to emit.
    Passed,
    /// The open pairs of own inits, or else the first open finding's pair, were separated;
    /// or that pair was accepted as a hazard of the input.
    Separated,
}

impl Repair<'_> {
    /// Separates the open pairs of own inits at once where that trial succeeds; else the
    /// leading pairs of one victim but the last, where one trial provably makes their rounds;
    /// else the pair of the first open finding that names two tiles, by the first edit that
    /// separates it (the others often follow from the same decision), or accepts it as a hazard
    /// the input itself carries; an error where neither can be.
    fn round(&mut self, check: &Check<'_>) -> Result<Round, SafePlanError> {
        let (planned, inherent) = (&self.plan.function, &self.inherent);
        if !self.findings.iter().any(|f| is_open(f, planned, inherent)) {
            return Ok(Round::Passed);
        }
        let input = self.edited.as_ref().unwrap_or(self.original);
        let sites = Sites::of(input, &self.plan.function, &self.pypto, check.user_vars);
        let (detached, left_named) = self.detach_own_inits(&sites, check);
        self.one_at_a_time.extend(left_named);
        if let Some(trial) = detached {
            self.adopt(trial);
            return Ok(Round::Separated);
        }
        // The merged trial finishes from the input's packing; `sites` borrows the rest.
        let mut plans = std::mem::take(&mut self.plans);
        let merged = self.keep_writers_off_one_victim(&sites, check, &mut plans);
        self.plans = plans;
        match merged {
            Merged::Trial(trial) => {
                self.adopt(*trial);
                return Ok(Round::Separated);
            }
            Merged::NotShown(victim) => self.unmerged.push(victim),
            Merged::NoChain => {}
        }
        let planned = &self.plan.function;
        let Some((finding, pair)) = first_open_pair(&self.findings, planned, &self.inherent) else {
            let findings = std::mem::take(&mut self.findings);
            return Err(unrepaired(findings, check.user_vars, planned));
        };
        let trials = Trials {
            sites: &sites,
            own: &self.own,
            finding,
            pair,
            bases: self.bases,
        };
        let Some(trial) = first_separating(&trials, &mut self.plans, &self.applied, check) else {
            // No edit separates the pair: accepted only as a hazard the input itself carries.
            let (original, config, options) = (self.original, check.config, check.options);
            let unshared = self
                .unshared
                .get_or_insert_with(|| unshared_findings(original, config, options));
            if input_hazard(original, planned, &self.findings, pair, unshared).is_none() {
                let findings = std::mem::take(&mut self.findings);
                return Err(unrepaired(findings, check.user_vars, &self.plan.function));
            }
            let names = pair_names(planned, pair);
            let pair_of = |f: &Finding| f.clobber.map(|c| pair_names(planned, c));
            for f in self.findings.iter().filter(|f| pair_of(f) == Some(names)) {
                self.inherent.extend(key(planned, f));
            }
            return Ok(Round::Separated);
        };
        self.adopt(trial);
        Ok(Round::Separated)
    }

    /// The input, groups, plan and findings a trial that separated its pairs leaves.
    fn adopt(&mut self, trial: Trial) {
        self.applied.extend(trial.edits);
        if let Some(edited) = trial.edited {
            self.edited = Some(edited.input);
            self.plans = edited.plans;
        }
        let replaced = std::mem::replace(&mut self.plan, trial.plan);
        if let PyptoPlan::Round = self.pypto {
            self.pypto = PyptoPlan::Kept(Box::new(replaced.plan.function));
        }
        (self.own, self.findings) = (trial.own, trial.findings);
        self.bases = trial.bases;
        self.from_trial = true;
        self.repairs.extend(trial.repairs);
    }

    /// The open pairs whose victim is the init of a loop carry or `if` result on the victim's
    /// buffer, each separated by detaching that place (module doc),
    /// all in one trial; `None` where no pair is one, or where the trial, and a second one
    /// without the pairs the first left named, does not separate every pair it detaches. With
    /// it, the pairs those trials left named: the one-pair rounds separate them from now on.
    fn detach_own_inits(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
    ) -> (Option<Trial>, Vec<(Name, Name)>) {
        let mut detaches = self.own_init_detaches(sites, check);
        let mut left = Vec::new();
        for _ in 0..2 {
            if detaches.is_empty() {
                break;
            }
            match self.detach_all(sites, &detaches, check) {
                Ok(trial) => return (Some(trial), left),
                Err(left_named) => {
                    detaches.retain(|d| !left_named.contains(&d.names));
                    left.extend(left_named);
                }
            }
        }
        (None, left)
    }

    /// The rounds that keep the leading writers of one victim off its buffer, made in one
    /// trial where it provably gives what those rounds give (`one_victim`).
    fn keep_writers_off_one_victim(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
        plans: &mut InputPlans,
    ) -> Merged {
        let planned = &self.plan.function;
        let Some(chain) = self.writers_of_one_victim(sites, check) else {
            return Merged::NoChain;
        };
        let Some(next) = chain.last() else {
            return Merged::NoChain;
        };
        let victim = next.pair.victim;
        let until = self.findings[next.finding].span().start;
        if self.unmerged.contains(&victim)
            || !losses_stay_after(planned, sites, &self.findings, victim, until)
        {
            return Merged::NoChain;
        }
        match self.merged_trial(sites, check, plans, &chain) {
            Some(trial) => Merged::Trial(Box::new(trial)),
            None => Merged::NotShown(victim),
        }
    }

    /// The trial that keeps every writer of `chain` but the last apart, if it shows the rounds
    /// it stands for: it moves the kept groups whole and alone, and finds the last pair
    /// first, with the victim still lost.
    fn merged_trial(
        &self,
        sites: &Sites<'_>,
        check: &Check<'_>,
        plans: &mut InputPlans,
        chain: &[Writer],
    ) -> Option<Trial> {
        let planned = &self.plan.function;
        // The last pair's round is left as it is: the trial must find it first.
        let (next, merged) = chain.split_last()?;
        let mut own = self.own.clone();
        own.extend(merged.iter().map(|w| w.group));
        let mut repairs = Vec::new();
        let input = self.edited.as_ref().unwrap_or(self.original);
        let (trial, separated) = plan_separating(
            input,
            plans,
            check.config,
            &mut own,
            &mut repairs,
            PlacedBy::EarlierRepairs,
        );
        let plan = trial
            .ok()
            .filter(|_| separated.is_none() && repairs.is_empty())?;
        if !moved_whole_and_alone(planned, &plan.function) {
            return None;
        }
        let findings = check_plan(check.plan_input, &plan.function, check.options);
        let next_finding = &self.findings[next.finding];
        let first_open = first_open_pair(&findings, &plan.function, &self.inherent);
        let victim_lost = findings.iter().any(|f| {
            f.is_unsafe()
                && f.code() == codes::VALUE_LOST
                && f.clobber.is_some_and(|c| c.victim == next.pair.victim)
        });
        let merged_pairs: Vec<(&str, &str)> =
            merged.iter().map(|w| pair_names(planned, w.pair)).collect();
        if first_open.map(|(f, _)| f) != Some(next_finding)
            || !victim_lost
            || names_a_pair_of(&findings, &plan.function, &merged_pairs)
        {
            return None;
        }
        let user_names = sites.user_names();
        let repairs: Vec<Diagnostic> = merged
            .iter()
            .map(|w| {
                w.text.warning(
                    &Made::default(),
                    &self.findings[w.finding],
                    planned,
                    user_names,
                )
            })
            .collect();
        if cfg!(debug_assertions) {
            self.assert_rounds_agree(check, plans, chain, &repairs);
        }
        Some(Trial {
            edits: merged.iter().map(|w| Action::KeepOwn(w.group)).collect(),
            edited: None,
            own,
            repairs,
            plan,
            findings,
            bases: self.bases,
        })
    }

    /// Debug builds make the rounds a merged trial stands for and hold each to it: the round
    /// that keeps one writer more apart finds the next writer's pair first, with the same
    /// finding, and makes the same repair of it.
    fn assert_rounds_agree(
        &self,
        check: &Check<'_>,
        plans: &mut InputPlans,
        chain: &[Writer],
        repairs: &[Diagnostic],
    ) {
        let input = self.edited.as_ref().unwrap_or(self.original);
        let pypto = match &self.pypto {
            PyptoPlan::Round => PyptoPlan::Kept(Box::new(self.plan.function.clone())),
            PyptoPlan::Kept(f) => PyptoPlan::Kept(f.clone()),
            PyptoPlan::Refused => PyptoPlan::Refused,
        };
        let mut own = self.own.clone();
        for (j, writer) in chain.iter().enumerate().skip(1) {
            own.insert(chain[j - 1].group);
            let mut own_j = own.clone();
            let (plan, _) = plan_separating(
                input,
                plans,
                check.config,
                &mut own_j,
                &mut Vec::new(),
                PlacedBy::EarlierRepairs,
            );
            let Ok(plan) = plan else {
                panic!("a merged round's plan is refused");
            };
            let findings = check_plan(check.plan_input, &plan.function, check.options);
            let first = first_open_pair(&findings, &plan.function, &self.inherent).map(|(f, _)| f);
            assert_eq!(
                first,
                Some(&self.findings[writer.finding]),
                "round {j} of a merged chain"
            );
            let kept: Vec<(&str, &str)> = chain[..j]
                .iter()
                .map(|w| pair_names(&self.plan.function, w.pair))
                .collect();
            assert!(
                !names_a_pair_of(&findings, &plan.function, &kept),
                "round {j} of a merged chain keeps a pair"
            );
            let Some(repair) = repairs.get(j) else {
                continue;
            };
            let sites = Sites::of(input, &plan.function, &pypto, check.user_vars);
            let (action, text) = candidates(&sites, &own, writer.pair, false)
                .into_iter()
                .find(|(action, _)| !self.applied.contains(action))
                .expect("a candidate");
            assert_eq!(
                action,
                Action::KeepOwn(writer.group),
                "round {j} of a merged chain"
            );
            let finding = &self.findings[writer.finding];
            let said = text.warning(
                &Made::default(),
                finding,
                &plan.function,
                sites.user_names(),
            );
            assert_eq!(&said, repair, "round {j} of a merged chain");
        }
    }

    /// The open pairs that lead the round's findings when they are at least three, all of one
    /// victim, each first found by the liveness checker (the co-live overlap at its writer's
    /// write) and first separated by keeping the writer's group on its own allocation, up to
    /// the first value the value checker finds lost.
    fn writers_of_one_victim(&self, sites: &Sites<'_>, check: &Check<'_>) -> Option<Vec<Writer>> {
        // Keep-own trials finish from one packing only under PyPTO's planner.
        if check.config.planner != crate::plan::Planner::Pypto {
            return None;
        }
        let planned = &self.plan.function;
        // A function that loses more values than are reported may show others once some are
        // kept: every loss must be in view.
        let losses = self
            .findings
            .iter()
            .filter(|f| f.code() == codes::VALUE_LOST);
        if losses.count() >= crate::verify::values::MAX_REPORTED {
            return None;
        }
        let mut leading: Vec<(usize, Clobber)> = Vec::new();
        for (at, finding) in self.findings.iter().enumerate() {
            // Once a writer is kept apart, a value lost at a read before the next pair's
            // finding can be found lost there again, by another writer: the chain ends there.
            if finding.code() == codes::VALUE_LOST {
                break;
            }
            let Some(pair) = finding
                .clobber
                .filter(|_| is_open(finding, planned, &self.inherent))
            else {
                continue;
            };
            if leading.iter().any(|&(_, p)| p == pair) {
                continue;
            }
            let same_victim = leading
                .first()
                .is_none_or(|&(_, p)| p.victim == pair.victim);
            if !same_victim || finding.code() != codes::CO_LIVE_OVERLAP {
                break;
            }
            leading.push((at, pair));
        }
        if leading.len() < 3 {
            return None;
        }
        let mut chain: Vec<Writer> = Vec::new();
        for (at, pair) in leading {
            let offsets = false;
            let first = candidates(sites, &self.own, pair, offsets)
                .into_iter()
                .find(|(action, _)| !self.applied.contains(action));
            let Some((Action::KeepOwn(group), text)) = first else {
                break;
            };
            let keeps_writer =
                matches!(text, RepairText::KeepsOwn { tile, .. } if tile == pair.writer);
            if !keeps_writer || chain.iter().any(|w| w.group == group) {
                break;
            }
            chain.push(Writer {
                pair,
                group,
                text,
                finding: at,
            });
        }
        (chain.len() >= 3).then_some(chain)
    }

    /// For each open pair (once, at its first finding) whose victim is the init of a place
    /// the pair could be separated by detaching, the first such place of [`candidates`].
    fn own_init_detaches(&self, sites: &Sites<'_>, check: &Check<'_>) -> Vec<OwnInitDetach> {
        let planned = &self.plan.function;
        let offsets = check.config.planner == crate::plan::Planner::Dsa;
        let mut seen: Vec<(&str, &str)> = Vec::new();
        let mut out: Vec<OwnInitDetach> = Vec::new();
        for (at, finding) in self.findings.iter().enumerate() {
            let Some(pair) = finding.clobber else {
                continue;
            };
            let names = pair_names(planned, pair);
            if seen.contains(&names) || !is_open(finding, planned, &self.inherent) {
                continue;
            }
            seen.push(names);
            let names = (Name::from(names.0), Name::from(names.1));
            if self.one_at_a_time.contains(&names) {
                continue;
            }
            let detach = candidates(sites, &self.own, pair, offsets)
                .into_iter()
                .find(|(action, text)| {
                    matches!(text, RepairText::Detaches { init, .. } if *init == pair.victim)
                        && !self.applied.contains(action)
                        && !out.iter().any(|d| d.action == *action)
                });
            if let Some((action, text)) = detach {
                out.push(OwnInitDetach {
                    action,
                    text,
                    finding: at,
                    names,
                });
            }
        }
        out
    }

    /// The trial that makes every edit of `detaches` at once, if it separates each one's
    /// pair; else the pairs it leaves named (all of them where the planner refuses it).
    fn detach_all(
        &self,
        sites: &Sites<'_>,
        detaches: &[OwnInitDetach],
        check: &Check<'_>,
    ) -> Result<Trial, Vec<(Name, Name)>> {
        let planned = &self.plan.function;
        let input = self.edited.as_ref().unwrap_or(self.original);
        let user_names = sites.user_names();
        let mut edited = input.clone();
        let mut own = self.own.clone();
        let mut bases = self.bases.unwrap_or_else(|| FreshBases::of(&input.vars));
        let mut repairs = Vec::new();
        let mut edits = Vec::new();
        let mut left_named = Vec::new();
        for d in detaches {
            let Some(made) = apply(d.action, &mut edited, &mut own, &mut bases) else {
                left_named.push(d.names.clone());
                continue;
            };
            let finding = &self.findings[d.finding];
            repairs.push(d.text.warning(&made, finding, planned, user_names));
            edits.push(d.action);
        }
        let all_named = || detaches.iter().map(|d| d.names.clone()).collect::<Vec<_>>();
        if edits.is_empty() {
            return Err(all_named());
        }
        let mut plans = InputPlans::planned();
        let (trial, separated) = plan_separating(
            &edited,
            &mut plans,
            check.config,
            &mut own,
            &mut repairs,
            PlacedBy::EarlierRepairs,
        );
        let Ok(plan) = trial else {
            return Err(all_named());
        };
        let findings = check_plan(check.plan_input, &plan.function, check.options);
        let named: Vec<(&str, &str)> = findings
            .iter()
            .filter(|f| f.is_unsafe())
            .filter_map(|f| Some(pair_names(&plan.function, f.clobber?)))
            .collect();
        left_named.extend(
            detaches
                .iter()
                .filter(|d| named.contains(&(d.names.0.as_str(), d.names.1.as_str())))
                .map(|d| d.names.clone()),
        );
        if !left_named.is_empty() {
            return Err(left_named);
        }
        let edited = Edited {
            input: edited,
            plans,
        };
        let (edited, bases) = Edited::separated_or(separated, (Some(edited), Some(bases)));
        Ok(Trial {
            edits,
            edited,
            own,
            repairs,
            plan,
            findings,
            bases,
        })
    }

    /// The plan that passed, its report made as `report` asks: with the repairs made, the
    /// hazards of the input it still carries (the gate every plan with findings passes) and
    /// the notes.
    fn emit(
        self,
        check: &Check<'_>,
        report: Completion,
    ) -> Result<(FunctionPlan, Option<Function>), SafePlanError> {
        let Repair {
            original,
            edited,
            own,
            mut repairs,
            mut plan,
            findings,
            from_trial,
            mut unshared,
            ..
        } = self;
        let (config, options) = (check.config, check.options);
        let (unsafe_findings, mut notes): (Vec<Finding>, Vec<Finding>) =
            findings.into_iter().partition(Finding::is_unsafe);
        if from_trial && unsafe_findings.is_empty() && config.planner == crate::plan::Planner::Dsa {
            // The repaired input laid out with the search too, kept where it passes both
            // checkers as the trial's layout did.
            let repaired = edited.as_ref().unwrap_or(original);
            let keeping = PlanOptions {
                own_buffer: &own,
                ..PlanOptions::default()
            };
            if let Ok(full) = plan_function(repaired, config, &keeping) {
                let full_findings = check_plan(check.plan_input, &full.function, options);
                if full_findings.iter().all(|f| !f.is_unsafe()) {
                    (plan, notes) = (Planned::whole(full), full_findings);
                }
            }
        }
        // The plan emitted: its report is made.
        let mut plan = plan.made(report);
        // The gate every plan with findings passes: each is one the input itself carries.
        if !unsafe_findings.is_empty() {
            let unshared =
                unshared.get_or_insert_with(|| unshared_findings(original, config, options));
            let Some(hazards) = hazards_of(original, &plan.function, &unsafe_findings, unshared)
            else {
                return Err(unrepaired(unsafe_findings, check.user_vars, &plan.function));
            };
            // The input's hazards name the input's tiles, never a copy.
            repairs.extend(hazards);
        }
        if !notes.is_empty() {
            let names = UserNames::of(check.user_vars, &plan.function);
            repairs.extend(notes.iter().map(|f| names.word(&plan.function, &f.worded)));
        }
        plan.report.diagnostics.extend(repairs);
        Ok((plan, edited))
    }
}

/// The trial that separated a round's pair: its edit, the input it leaves where it edited it
/// (with that input's plans), the groups it keeps apart, its repairs, and its plan with the
/// checkers' findings.
struct Trial {
    /// The edits it made, each made once.
    edits: Vec<Action>,
    edited: Option<Edited>,
    own: FxHashSet<VarId>,
    repairs: Vec<Diagnostic>,
    plan: Planned,
    findings: Vec<Finding>,
    /// The names of allocations its input does not use yet, where they are known.
    bases: Option<FreshBases>,
}

/// Whether a round repairs `finding` of `planned`: it is unsafe (notes, lifetimes that overlap
/// without a lost value, ask for no repair) and not among the input's own hazards.
fn is_open(finding: &Finding, planned: &Function, inherent: &[FindingKey]) -> bool {
    finding.is_unsafe() && key(planned, finding).is_none_or(|k| !inherent.contains(&k))
}

/// Whether an unsafe finding of `f` names one of `pairs` (victim and writer, by name).
fn names_a_pair_of(findings: &[Finding], f: &Function, pairs: &[(&str, &str)]) -> bool {
    findings.iter().any(|finding| {
        finding.is_unsafe()
            && finding
                .clobber
                .is_some_and(|c| pairs.contains(&pair_names(f, c)))
    })
}

/// What became of a round's leading pairs of one victim.
enum Merged {
    /// They are not a chain to merge: too few, their losses might be found earlier, or this
    /// victim's merged trial failed before.
    NoChain,
    /// The merged trial did not show the rounds it stands for: this victim's writers are kept
    /// apart one round each from now on.
    NotShown(VarId),
    /// The merged trial, which stands for all but the last pair's rounds.
    Trial(Box<Trial>),
}

/// A writer of the victim of a round's leading pairs: its pair, its sharing group, the
/// warning of keeping that group on its own allocation, and the pair's first finding (an index
/// into the round's findings).
struct Writer {
    pair: Clobber,
    group: VarId,
    text: RepairText,
    finding: usize,
}

/// The first open finding that names two tiles, with them: the pair a round separates.
fn first_open_pair<'f>(
    findings: &'f [Finding],
    planned: &Function,
    inherent: &[FindingKey],
) -> Option<(&'f Finding, Clobber)> {
    findings
        .iter()
        .filter(|f| is_open(f, planned, inherent))
        .find_map(|f| Some((f, f.clobber?)))
}

/// An open pair's victim is the init of a place it can be separated by detaching: the edit,
/// its repair's words, the finding (an index into the round's findings) and the pair's names.
struct OwnInitDetach {
    action: Action,
    text: RepairText,
    finding: usize,
    names: (Name, Name),
}

/// What one round's trials start from: the input as repaired so far and its plan (with where
/// their tiles sit), the groups it keeps apart, and the finding whose pair of tiles they
/// separate.
#[derive(Clone, Copy)]
struct Trials<'a> {
    /// The round's input and plan, and where their tiles sit.
    sites: &'a Sites<'a>,
    own: &'a FxHashSet<VarId>,
    finding: &'a Finding,
    pair: Clobber,
    /// The names of allocations `input` does not use yet, where they are known.
    bases: Option<FreshBases>,
}

/// What every trial is planned and checked with: the input as the checkers see it, how many
/// of a plan's variables are the user's, and the configuration.
#[derive(Clone, Copy)]
struct Check<'a> {
    plan_input: &'a PlanInput,
    user_vars: usize,
    config: &'a PlanConfig,
    options: &'a VerifyOptions,
}

/// The first trial, in the order of [`candidates`], that separates the round's pair, with
/// `plans` the plans of the round's input; an edit in `applied` is not made again (a pair it
/// did not keep apart stays a finding).
fn first_separating(
    trials: &Trials<'_>,
    plans: &mut InputPlans,
    applied: &FxHashSet<Action>,
    check: &Check<'_>,
) -> Option<Trial> {
    let Trials {
        sites,
        own,
        finding,
        pair,
        mut bases,
    } = *trials;
    let (input, planned) = (sites.input, sites.planned);
    let Check {
        plan_input,
        config,
        options,
        ..
    } = *check;
    let names = pair_names(planned, pair);
    let offsets = config.planner == crate::plan::Planner::Dsa;
    let user_names = sites.user_names();
    let mut kept_the_pair = KeptThePair::default();
    for (action, text) in candidates(sites, own, pair, offsets) {
        // An edit is made once: a pair it did not keep apart stays a finding.
        if applied.contains(&action) {
            continue;
        }
        let mut trial_own = own.clone();
        // Each edit is of a copy of `input`, and names its allocation from `input`'s names.
        let mut trial_bases = bases;
        // Only an edit of the input copies it; keeping a group on its own buffer does not.
        let (trial_input, made) = match action {
            Action::KeepOwn(v) => {
                trial_own.insert(v);
                // Keeping the same intervals apart as a trial that kept the pair would
                // plan its function again.
                let kept = plans.kept_own(&trial_own);
                if kept.is_some_and(|kept| kept_the_pair.kept_own.contains(&kept)) {
                    continue;
                }
                (None, Made::default())
            }
            _ => {
                let mut trial_input = input.clone();
                let input_bases = *bases.get_or_insert_with(|| FreshBases::of(&input.vars));
                let edit_bases = trial_bases.insert(input_bases);
                let Some(made) = apply(action, &mut trial_input, &mut trial_own, edit_bases) else {
                    continue;
                };
                (Some(trial_input), made)
            }
        };
        let mut trial_repairs = vec![text.warning(&made, finding, planned, user_names)];
        // An edited input is packed once and kept: its later trials finish from it.
        let mut trial_plans = InputPlans::planned();
        let (planned, separated) = match &trial_input {
            Some(trial_input) => plan_separating(
                trial_input,
                &mut trial_plans,
                config,
                &mut trial_own,
                &mut trial_repairs,
                PlacedBy::EarlierRepairs,
            ),
            None => plan_separating(
                input,
                plans,
                config,
                &mut trial_own,
                &mut trial_repairs,
                PlacedBy::EarlierRepairs,
            ),
        };
        // An edit the planner cannot plan from is no repair.
        let Ok(trial) = planned else {
            continue;
        };
        // A plan this round's trials made before, which kept the pair, keeps it again: the
        // checkers see the same function.
        if kept_the_pair.functions.contains(&trial.function) {
            continue;
        }
        // Tiles the fixups insert get new ids in every plan; their names stay.
        let Some(trial_findings) =
            check_plan_separating(plan_input, &trial.function, options, names)
        else {
            // Finished from the input's packing with just one more group kept apart.
            let keeps_one_more =
                trial_input.is_none() && separated.is_none() && trial_own.len() == own.len() + 1;
            if keeps_one_more && let Some(kept) = plans.kept_own(&trial_own) {
                kept_the_pair.kept_own.push(kept);
            }
            kept_the_pair.functions.push(trial.plan.function);
            continue;
        };
        let edited = trial_input.map(|input| Edited {
            input,
            plans: trial_plans,
        });
        let (edited, trial_bases) = Edited::separated_or(separated, (edited, trial_bases));
        return Some(Trial {
            edits: vec![action],
            edited,
            own: trial_own,
            repairs: trial_repairs,
            plan: trial,
            findings: trial_findings,
            bases: trial_bases,
        });
    }
    None
}

/// The error for findings no edit repairs, each as the user is told of it.
fn unrepaired(findings: Vec<Finding>, user_vars: usize, planned: &Function) -> SafePlanError {
    let names = UserNames::of(user_vars, planned);
    SafePlanError::Unrepaired(
        findings
            .into_iter()
            .map(|f| names.word(planned, &f.worded))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::backend::Backend;
    use crate::ir::parse_program;
    use crate::is_repair;
    use crate::plan::Planning;
    use crate::safely::verify_options;
    use std::rc::Rc;
    use std::sync::Arc;

    /// The fixture whose `if` result has four writers packed onto its buffer: the first is
    /// kept apart in a round of its own (the `then` arm reads the result after it), the next
    /// two in one trial, and the last in a round of its own again; the plan emitted is the one
    /// four rounds make (tests/repair_fixtures.rs holds its snapshot).
    #[test]
    fn a_victims_leading_writers_are_kept_apart_in_one_round() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../tests/data/repair/r001_writers_of_one_victim_kept_apart_in_one_trial.py"
        );
        let text = std::fs::read_to_string(path).expect("the fixture");
        let program = parse_program(&text).expect("the fixture parses");
        let f = &program.functions[0];
        let config = PlanConfig {
            backend: Backend::Ascend910B,
            ..PlanConfig::default()
        };
        let options = verify_options(&config);
        let plan_input = PlanInput::of(f);
        let planning = Rc::new(Planning::kept(Arc::new(f.clone()), &config));
        let first = planning.trial(&FxHashSet::default()).map(|(plan, to_do)| {
            let findings = check_plan(&plan_input, &plan.function, &options);
            let rest = Some((Rc::clone(&planning), to_do));
            (Planned { plan, rest }, findings)
        });
        let plans = InputPlans::packed(planning);
        let safely = Safely::whole(&config, &options);
        let Ok(Begun::Rounds(mut repair, check)) = begin(f, &plan_input, first, plans, safely)
        else {
            panic!("PyPTO's plan of the fixture is repaired");
        };
        let made = |repair: &Repair<'_>| repair.repairs.iter().filter(|d| is_repair(d)).count();
        let mut rounds = Vec::new();
        for _ in 0..MAX_ROUNDS {
            if repair.round(&check).ok() != Some(Round::Separated) {
                break;
            }
            rounds.push(made(&repair));
        }
        assert_eq!(rounds, [1, 3, 4], "the repairs made after each round");
    }
}
