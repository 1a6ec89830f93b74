package ros2

import (
	"fmt"

	"github.com/actbridge/actbridge/config"
)

// Until drive.go and odom.go serve a base's topics, a base reaches the
// robot through its navigation action only; config refuses cmd_vel_topic
// and odom_topic under transport ros2, and these refuse them too. This
// file goes when drive.go defines newDriver and odom.go newOdometer.

func (r *Robot) newDriver(ac config.ActuatorConfig) (driver, error) {
	return nil, fmt.Errorf("%w: %s: cmd_vel_topic: transport ros2 does not drive a base on cmd_vel yet", config.ErrConfig, ac.Name)
}

func (r *Robot) newOdometer(ac config.ActuatorConfig) (odometer, error) {
	return nil, fmt.Errorf("%w: %s: odom_topic: transport ros2 does not read odometry yet", config.ErrConfig, ac.Name)
}
