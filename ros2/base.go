package ros2

import (
	"context"
	"errors"
	"sync"

	"github.com/actbridge/actbridge/actuators"
)

// driver is a base's velocity side on its cmd_vel_topic (drive.go): timed
// drives whose deadman is the ctx given to Send. It keeps its own goal
// ids (a drive id is never driven twice) and reports its drives through
// the robot's notifier.
type driver interface {
	// start runs d under goalID as actuators.Motion.Send says: it returns
	// once the first twist is on the wire, or with nothing published.
	start(ctx context.Context, goalID string, d actuators.Drive) error
	// cancel ends goalID's drive, publishing zero; false when goalID is
	// not a drive of this driver's.
	cancel(goalID string) bool
	// stop ends any drive, reporting why (errDriveStopAll,
	// errDriveShutdown), and publishes zero, also with no drive running.
	// It takes no lock a start holds while it waits.
	stop(ctx context.Context, why error) error
	// status reports whether the cmd_vel topic has a subscriber, and why not.
	status() (bool, string)
	// flush waits, bounded by ctx, until the subscribers acknowledged
	// what was published (Close's last zeros).
	flush(ctx context.Context) error
}

// odometer is a base's odometry on its odom_topic (odom.go).
type odometer interface {
	// pose is the newest pose in the base's odom_frame; false when there
	// is none or it is stale.
	pose() (actuators.Pose2D, bool)
}

// openBase makes a base's topic side: its drive and its odometry.
func (r *Robot) openBase(a *actuator) error {
	var err error
	if a.cfg.CmdVelTopic != "" {
		if a.drive, err = r.newDriver(a.cfg); err != nil {
			return err
		}
	}
	if a.cfg.OdomTopic != "" {
		if a.odom, err = r.newOdometer(a.cfg); err != nil {
			return err
		}
	}
	return nil
}

// stopDrives stops every drive at once for why, each bounded by
// stopCancelWait; the error lists the drives that could not publish their
// zero.
func (r *Robot) stopDrives(ctx context.Context, why error) error {
	var (
		wg   sync.WaitGroup
		mu   sync.Mutex
		errs []error
	)
	for _, a := range r.order {
		if a.drive == nil {
			continue
		}
		wg.Go(func() {
			sctx, cancel := context.WithTimeout(ctx, stopCancelWait)
			defer cancel()
			if err := a.drive.stop(sctx, why); err != nil {
				mu.Lock()
				errs = append(errs, contractError(a.cfg.Name, err))
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}
