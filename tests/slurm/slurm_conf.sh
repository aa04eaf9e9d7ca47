# The slurm.conf settings the one-node (tests/slurm) and two-node (tests/multinode) test clusters
# share: how jobs are tracked, placed and accounted (none), and the timeouts. Sourced; the callers
# write the names, paths and nodes around them.
#
#   slurm_conf_policies TASK_PLUGIN     prints the lines
slurm_conf_policies() {
  cat <<CONF
ProctrackType=proctrack/linuxproc
TaskPlugin=$1
MpiDefault=pmix
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
CONF
}
